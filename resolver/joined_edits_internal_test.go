package resolver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scan.All and Log read the calls in place while lookups publish, cancel,
// retry, panic and run out of budget around them.
func TestScanAllRace(t *testing.T) {
	var n sync.Mutex
	k := 0
	next := Func(func(ctx context.Context, name string, qtype Type) Answer {
		n.Lock()
		k++
		i := k
		n.Unlock()
		switch i % 5 {
		case 0:
			select {
			case <-ctx.Done():
			case <-time.After(time.Millisecond):
			}
			return Fail(ReasonCanceled)
		case 1:
			panic("below")
		case 2:
			return Answer{Outcome: Found, Records: []Record{{Type: TypeTXT, TXT: unescapeAll([]string{"a", "b\\032c", strings.Repeat("x", 100)})}}}
		}
		time.Sleep(time.Microsecond)
		return Fail(ReasonTimeout)
	})
	s := NewScan(next, 400)
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 100 {
				ctx, cancel := context.WithCancel(context.Background())
				if i%3 == 0 {
					go cancel()
				}
				a := s.Lookup(ctx, fmt.Sprintf("n%d.test", (g*31+i)%150), TypeTXT)
				for _, r := range a.Records {
					assert.Equal(t, strings.Join(r.TXT, ""), r.JoinedTXT())
				}
				cancel()
			}
		}()
	}
	var rd sync.WaitGroup
	rd.Add(1)
	go func() {
		defer rd.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			cnt := 0
			s.All(func(q Query) bool { cnt++; _ = q.End.Sub(q.Start); return true })
			l := s.Log()
			_ = s.Queries()
			if cnt > len(l) {
				t.Errorf("All saw %d, Log later %d", cnt, len(l))
			}
		}
	}()
	wg.Wait()
	close(stop)
	rd.Wait()
	l := s.Log()
	i := 0
	require.True(t, s.All(func(q Query) bool { ok := q == l[i]; i++; return ok }))
	require.Equal(t, len(l), i)
}

// Random edits of a decoded record's slice: JoinedTXT is always the
// concatenation, and so for a clone.
func TestJoinedTXTRandomEdits(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"", "a", `\\`, `\032`, `\255`, "abc", `x\`, `\"q`, "v=spf1", " -all"}
	for iter := range 50000 {
		ns := []int{0, 1, 2, 3, 255}[r.IntN(5)]
		if ns == 255 && iter%50 != 0 {
			ns = 2 + r.IntN(6)
		}
		ss := make([]string, ns)
		for i := range ss {
			ss[i] = pieces[r.IntN(len(pieces))]
		}
		txt := unescapeAll(ss)
		var want strings.Builder
		for _, s := range ss {
			want.WriteString(unescape(s))
		}
		require.Equal(t, want.String(), Record{TXT: txt}.JoinedTXT())
		others := []string{"", "zz", strings.Clone("abc")}
		if len(txt) > 0 {
			j := Record{TXT: txt}.JoinedTXT()
			others = append(others, j, j[:len(j)/2], j[len(j)/2:], txt[0])
		}
		for range r.IntN(4) {
			switch op := r.IntN(7); {
			case op == 0 && len(txt) > 0:
				txt[r.IntN(len(txt))] = others[r.IntN(len(others))]
			case op == 1:
				txt = append(txt, others[r.IntN(len(others))])
			case op == 2 && len(txt) > 0:
				a := r.IntN(len(txt))
				b := a + r.IntN(len(txt)-a+1)
				txt = txt[a:b]
			case op == 3:
				txt = cloneTXT(txt)
			case op == 4 && len(txt) > 1:
				a, b := r.IntN(len(txt)), r.IntN(len(txt))
				txt[a], txt[b] = txt[b], txt[a]
			case op == 5 && cap(txt) > len(txt):
				txt[:len(txt)+1][len(txt)] = others[r.IntN(len(others))]
			case op == 6 && cap(txt) > len(txt):
				txt = txt[:len(txt)+1]
			}
			require.Equal(t, strings.Join(txt, ""), Record{TXT: txt}.JoinedTXT(), "iter %d", iter)
			require.Equal(t, strings.Join(txt, ""), Record{TXT: cloneTXT(txt)}.JoinedTXT(), "iter %d", iter)
		}
	}
}
