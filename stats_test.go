package mailauth

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/mailauth/mailauth/internal/seqscan"
	"github.com/mailauth/mailauth/internal/testlab"
	"github.com/mailauth/mailauth/resolver/dnstest"
)

// TestScanStats: OnStats receives one report per scan with the distinct
// questions and a critical-path bound within the wall time; a scan whose
// context is marked by seqscan (the bench's sequential baseline) gives
// the same result as the concurrent one.
func TestScanStats(t *testing.T) {
	lab := testlab.Start(t, []string{scanZone}, policies)
	z := dnstest.MustLoad(t, scanZone)
	for _, n := range z.Names() {
		lab.DNS.SetFault(n, dnstest.AnyType, dnstest.Delay(5*time.Millisecond))
	}
	var got []ScanStats
	s := New(Config{
		Resolver: lab.DNS.Client(time.Second), HTTPSPort: lab.HTTPSPort, RootCAs: lab.RootCAs,
		AllowLoopbackTargets: true, Now: func() time.Time { return fixedNow },
		OnStats: func(st ScanStats) { got = append(got, st) },
	})
	req := ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"}
	concurrent, err := s.Scan(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	sequential, err := s.Scan(seqscan.With(context.Background()), req)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(concurrent, sequential) {
		t.Errorf("the sequential scan differs from the concurrent one:\n%+v\n%+v", sequential, concurrent)
	}
	if len(got) != 2 {
		t.Fatalf("OnStats called %d times for 2 scans", len(got))
	}
	for i, st := range got {
		if st.Questions < 10 || st.Bound <= 0 || st.Bound > st.Wall || st.Hops < 2 || st.Hops > st.Questions {
			t.Errorf("scan %d: %+v: want at least 10 questions, 0 < bound <= wall, 2 <= hops <= questions", i, st)
		}
	}
	// Every question of the fixture's deepest chain (MX, then the
	// exchange's addresses, then the MTA-STS fetch) has 5 ms added, so
	// the bound holds at least two answers.
	if got[0].Bound < 10*time.Millisecond {
		t.Errorf("bound %v: the scan waited on at least two dependent answers of 5 ms", got[0].Bound)
	}
}
