package analytics

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/httpapi"
)

// crashChildEnv names the database of the child process of TestCrash.
const crashChildEnv = "MAILAUTH_TEST_CRASH_CHILD_DB"

// crashAckAfter is the number of acknowledged rows after which the parent
// kills the child, in the middle of its burst.
const crashAckAfter = 300

// quickService answers every diagnostic at once with a fixed verdict.
type quickService struct{}

func (quickService) Scan(_ context.Context, req mailauth.ScanRequest) (mailauth.ScanSummary, error) {
	d, err := mailauth.NormalizeDomain(req.Domain)
	if err != nil {
		return mailauth.ScanSummary{}, err
	}
	return mailauth.ScanSummary{Domain: d.ASCII, Grade: mailauth.GradeB,
		Checks: []mailauth.CheckSummary{{ID: mailauth.CheckSPF, Status: mailauth.StatusPass}}}, nil
}

func (quickService) CheckIP(_ context.Context, ip netip.Addr) (mailauth.PTRCheckSummary, error) {
	return mailauth.PTRCheckSummary{SendingIP: ip.String(), Check: mailauth.CheckSummary{ID: mailauth.CheckPTR, Status: mailauth.StatusWarn}}, nil
}

// TestMain runs the child process of TestCrash when crashChildEnv is
// set, else the tests.
func TestMain(m *testing.M) {
	if path := os.Getenv(crashChildEnv); path != "" {
		if err := crashChild(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// crashChild is the child process of TestCrash: a service whose analytics
// go to the SQLite file at path. It prints "listening ADDR", then
// "committed N" after each committed batch, and runs until it is killed.
func crashChild(path string) error {
	store, err := OpenSQLite(context.Background(), path)
	if err != nil {
		return err
	}
	h, err := NewHasher(testSecret, DefaultSourceLabels)
	if err != nil {
		return err
	}
	var mu sync.Mutex
	say := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(os.Stdout, format+"\n", a...)
	}
	w := NewWriter(store, h, WriterOptions{BatchSize: 16, OnCommit: func(n int64) { say("committed %d", n) }})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	say("listening %s", ln.Addr())
	return http.Serve(ln, httpapi.New(quickService{}, httpapi.Options{Recorder: w, Storage: store,
		Limiter: httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{Limit: 1 << 30})}))
}

// TestCrash kills the service (SIGKILL) in the middle of a burst of
// scans; the SQLite file then opens cleanly, passes an integrity check,
// and holds at least every row the writer acknowledged as committed, each
// the hash of a domain that was really sent.
func TestCrash(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "crash.db")
	child := exec.Command(os.Args[0])
	child.Env = append(os.Environ(), crashChildEnv+"="+path)
	out, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	lines := bufio.NewScanner(out)
	addr := ""
	for addr == "" && lines.Scan() {
		addr, _ = strings.CutPrefix(lines.Text(), "listening ")
	}
	if addr == "" {
		_ = child.Process.Kill()
	}
	require.NotEmpty(t, addr, "child did not listen: %v", lines.Err())
	var sent atomic.Int64
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() { burst(addr, g, &sent, stop) })
	}
	acked := int64(0)
	for lines.Scan() {
		if n, ok := strings.CutPrefix(lines.Text(), "committed "); ok {
			acked, _ = strconv.ParseInt(n, 10, 64)
			if acked >= crashAckAfter {
				break
			}
		}
	}
	_ = child.Process.Kill() // SIGKILL: no flush, no shutdown
	for lines.Scan() {       // acknowledgements written before the kill
		if n, ok := strings.CutPrefix(lines.Text(), "committed "); ok {
			acked, _ = strconv.ParseInt(n, 10, 64)
		}
	}
	_ = child.Wait()
	close(stop)
	wg.Wait()
	require.GreaterOrEqual(t, acked, int64(crashAckAfter), "only %d rows acknowledged before the child ended", acked)
	checkAfterCrash(t, path, acked, sent.Load())
}

// burst posts scans of distinct domains (g, i) until stop or a failure.
func burst(addr string, g int, sent *atomic.Int64, stop chan struct{}) {
	c := &http.Client{}
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		sent.Add(1)
		resp, err := c.Post("http://"+addr+"/api/scan", "application/json", strings.NewReader(fmt.Sprintf(`{"domain":"crash-%d-%d.example.com"}`, g, i)))
		if err != nil {
			return // the child is gone
		}
		resp.Body.Close()
	}
}

// checkAfterCrash opens the file again and checks its rows.
func checkAfterCrash(t *testing.T, path string, acked, sent int64) {
	t.Helper()
	s, err := OpenSQLite(context.Background(), path)
	require.NoError(t, err, "reopen after the crash")
	defer s.Close()
	var check string
	err = s.db.QueryRow("PRAGMA integrity_check").Scan(&check)
	require.NoError(t, err, "integrity_check")
	require.Equal(t, "ok", check, "integrity_check")
	sentHashes := map[string]bool{}
	h := testHasher(t)
	for g := range 4 {
		for i := range sent {
			sentHashes[h.Domain(fmt.Sprintf("crash-%d-%d.example.com", g, i))] = true
		}
	}
	rows, err := s.db.Query("SELECT domain_hash FROM events")
	require.NoError(t, err)
	defer rows.Close()
	var n int64
	for rows.Next() {
		var d string
		require.NoError(t, rows.Scan(&d))
		require.True(t, sentHashes[d], "row %d holds a hash of no domain sent", n)
		n++
	}
	assert.GreaterOrEqual(t, n, acked, "%d rows after the crash; %d acknowledged, %d requests sent", n, acked, sent)
	assert.LessOrEqual(t, n, sent, "%d rows after the crash; %d acknowledged, %d requests sent", n, acked, sent)
	t.Logf("%d rows acknowledged, %d stored, %d requests sent", acked, n, sent)
	assert.NoError(t, s.Rollup(context.Background(), Day(timeNow())), "roll-up after the crash")
}

// timeNow is the clock the child dated its rows by.
var timeNow = time.Now
