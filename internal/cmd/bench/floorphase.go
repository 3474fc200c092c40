package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mailauth/mailauth/resolver"
	"github.com/mailauth/mailauth/spf"
)

// floorResult is what the floor phase measured (see floor.go).
type floorResult struct {
	clients    int    // exchanges, fetches and HTTP answers at once
	load       string // the load average when it was measured
	parts      floorFigures
	http       time.Duration // one HTTP answer (service side)
	answerSize int64         // bytes of a real scan's answer, the canned answer's size
	spf, dmarc aloneFigures  // the checks alone, per check
}

// perScan is the floor of one scan: its DNS exchanges, its TLS fetch and
// its HTTP answer.
func (f floorResult) perScan() time.Duration {
	return floorExchanges*f.parts.Exchange + f.parts.TLS + f.http
}

// checkFloor is the floor of a check alone: its wire queries, each an
// exchange on a reused socket.
func (f floorResult) checkFloor(a aloneFigures) time.Duration {
	return time.Duration(a.Wire * float64(f.parts.Exchange))
}

// runFloor starts a service process and measures the floor in it, over
// n distinct domains (the last ones of the lab, with no DNS delay), clients
// at a time (the load phase it is compared with has as many clients): the
// HTTP answer first, driven from here by that many clients, then the
// client side (DNS exchanges, TLS fetches), which the service process runs
// itself that many at once, then, one at a time, the SPF and DMARC checks
// alone (skipped with alone false).
func (l *lab) runFloor(n, clients int, alone bool) (floorResult, error) {
	r := floorResult{clients: clients}
	svc, err := startServiceProc(l.serviceConfig(loadPhase{maxInFlight: 1}))
	if err != nil {
		return r, err
	}
	defer func() {
		if svc != nil {
			svc.kill()
		}
	}()
	n = min(max(n, 10, clients), len(l.domains))
	domains := l.domains[len(l.domains)-n:]
	client := loadClient(0)
	defer client.CloseIdleConnections()
	if r.answerSize, err = post(client, "http://"+svc.addr+"/api/scan", domains[0]); err != nil {
		return r, fmt.Errorf("floor: a real scan: %w", err)
	}
	if _, err := svc.ask(fmt.Sprintf("floor-size %d", r.answerSize)); err != nil {
		return r, err
	}
	conc := min(clients, len(domains))
	clientsHTTP := make([]*http.Client, conc)
	for i := range clientsHTTP {
		clientsHTTP[i] = loadClient(i)
		defer clientsHTTP[i].CloseIdleConnections()
	}
	cpu0, err := svc.cpu()
	if err != nil {
		return r, err
	}
	var wg sync.WaitGroup
	var failed atomic.Int64
	for i := range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := i; k < len(domains); k += conc {
				if _, err := post(clientsHTTP[i], "http://"+svc.addr+floorPath, domains[k]); err != nil {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() > 0 {
		return r, fmt.Errorf("floor: %d HTTP answers failed", failed.Load())
	}
	cpu1, err := svc.cpu()
	if err != nil {
		return r, err
	}
	r.http = (cpu1 - cpu0) / time.Duration(len(domains))
	names := make([]string, len(domains))
	for i, d := range domains {
		names[i] = d.name
	}
	if err := svc.askJSON(fmt.Sprintf("floor-client %d %s", clients, strings.Join(names, ",")), &r.parts); err != nil {
		return r, err
	}
	r.load = loadAverage()
	if alone {
		for _, c := range []struct {
			name string
			out  *aloneFigures
		}{{"spf", &r.spf}, {"dmarc", &r.dmarc}} {
			if err := svc.askJSON("alone "+c.name+" "+strings.Join(names, ","), c.out); err != nil {
				return r, err
			}
		}
	}
	_, err = svc.stop()
	svc = nil
	return r, err
}

// askJSON sends a command whose answer is JSON and decodes it into v.
func (p *serviceProc) askJSON(cmd string, v any) error {
	s, err := p.ask(cmd)
	if err != nil {
		return err
	}
	if err := json.Unmarshal([]byte(s), v); err != nil {
		return fmt.Errorf("service process, %s: %w", strings.Fields(cmd)[0], err)
	}
	return nil
}

// waveResolver records when each lookup started and ended, to count the
// sequential waves of a check: a lookup's wave is one more than the
// largest wave of the lookups that had ended when it started. Answers
// that arrive in the same round trip end before any lookup they cause
// starts, so the count is the round trips on the critical path, however
// long each one took.
type waveResolver struct {
	next resolver.Resolver

	mu    sync.Mutex
	ended []int // waves of the lookups ended so far
	max   int
}

func (w *waveResolver) Lookup(ctx context.Context, name string, qtype resolver.Type) resolver.Answer {
	w.mu.Lock()
	wave := 1
	for _, e := range w.ended {
		wave = max(wave, e+1)
	}
	w.mu.Unlock()
	a := w.next.Lookup(ctx, name, qtype)
	w.mu.Lock()
	w.ended = append(w.ended, wave)
	w.max = max(w.max, wave)
	w.mu.Unlock()
	return a
}

// spfRoundTrips checks deepTreeDomain's SPF policy with every answer
// held back by delay, through the product's DNS client and no cache, and
// returns the round trips its walk took and the wall time.
func (l *lab) spfRoundTrips(delay time.Duration) (trips int, wall time.Duration, lookups int, err error) {
	l.dns.DelayAll(delay)
	defer l.dns.DelayAll(0)
	w := &waveResolver{next: &resolver.Client{Servers: []string{l.dns.Addr()}}}
	t0 := time.Now()
	res := spf.Check(context.Background(), w, deepTreeDomain)
	wall = time.Since(t0)
	if res.LookupCount == nil {
		return 0, wall, 0, fmt.Errorf("spf deep tree: the walk did not count (%s)", res.ErrorCause)
	}
	return w.max, wall, len(w.ended), nil
}

// floorRows are the headline's figures of one floor, one value each;
// the checks alone only with alone.
func floorRows(f floorResult, alone bool) []row {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	ratio := func(a, b time.Duration) float64 {
		if b <= 0 {
			return math.NaN()
		}
		return float64(a) / float64(b)
	}
	at := fmt.Sprintf(", %d at once", f.clients)
	rows := []row{
		floorRow("floor: CPU ms per scan (15 DNS exchanges + TLS handshake and GET + HTTP answer)"+at, f, ms(f.perScan())),
		floorRow("floor: µs per DNS exchange on a reused UDP socket"+at, f, ms(f.parts.Exchange)*1000),
		floorRow("floor: ms per TLS 1.3 handshake and GET"+at, f, ms(f.parts.TLS)),
		floorRow(fmt.Sprintf("floor: ms per HTTP answer (%d-byte answer)", f.answerSize)+at, f, ms(f.http)),
	}
	if alone {
		rows = append(rows,
			floorRow("SPF alone: CPU ms per check", f, ms(f.spf.CPU)),
			floorRow("SPF alone: wire queries per check", f, f.spf.Wire),
			floorRow("SPF alone: CPU / floor", f, ratio(f.spf.CPU, f.checkFloor(f.spf))),
			floorRow("DMARC alone: CPU ms per check", f, ms(f.dmarc.CPU)),
			floorRow("DMARC alone: wire queries per check", f, f.dmarc.Wire),
			floorRow("DMARC alone: CPU / floor", f, ratio(f.dmarc.CPU, f.checkFloor(f.dmarc))))
	}
	return rows
}

// floorRow is one figure of a floor, with the load average when the floor
// was measured.
func floorRow(label string, f floorResult, v float64) row {
	return row{label: label, values: [][]float64{{v}}, loads: []string{f.load}}
}
