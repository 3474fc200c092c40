package main

import (
	"bufio"
	"context"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"os"
	"os/signal"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/mailauth/mailauth"
	"github.com/mailauth/mailauth/analytics"
	"github.com/mailauth/mailauth/httpapi"
	"github.com/mailauth/mailauth/internal/gctune"
	"github.com/mailauth/mailauth/resolver"
)

// The bench's service process: the bench binary run again with
// serviceEnv set to serviceRole (never a flag: parseFlags does not see
// it, and a user has no reason to set it). It serves the scanner through
// httpapi, alone in its process, so that its CPU time and resident set
// are the service's and nothing else's.
//
// The protocol, one line at a time:
//
//   - the parent writes a serviceConfig as one JSON line on the child's
//     stdin; the child answers with its listen address (host:port) on
//     stdout, or exits non-zero with the reason on stderr;
//   - "cpu": the child answers with its user+system CPU time so far in
//     nanoseconds (getrusage, exact where /proc's clock ticks are 10 ms);
//   - "heap PATH": the child collects garbage, writes a heap profile to
//     PATH and answers with its heapSnapshot as one JSON line;
//   - "purge" or "purge PATH": the child drops the answers of its
//     shared DNS cache (Scanner.PurgeDNSCache), collects garbage, writes
//     a heap profile to PATH when given, and answers with its
//     heapSnapshot as one JSON line;
//   - a command that fails is answered "error: " and the reason;
//   - when stdin closes (or on SIGTERM) the child stops serving and
//     writes its serviceFigures as one JSON line, then exits 0.
const (
	serviceEnv  = "MAILAUTH_BENCH_ROLE"
	serviceRole = "service"
)

// maxServiceLine bounds one line of the protocol; the configuration line,
// which carries the CA certificate, is the longest (about 1 KB).
const maxServiceLine = 64 << 10

// serviceShutdownTimeout bounds the service's graceful stop: the load
// generator has received every answer by then, so only idle connections
// remain to close.
const serviceShutdownTimeout = 5 * time.Second

// serviceConfig is everything the service process needs, passed
// explicitly: it reads no flag and no other environment variable than
// GOGC and GOMEMLIMIT (gctune).
type serviceConfig struct {
	DNS         string `json:"dns"`         // the lab's DNS server, 127.0.0.1:port
	HTTPSPort   int    `json:"httpsPort"`   // the lab's HTTPS server of the policies
	CAPEM       string `json:"caPem"`       // the lab's CA certificate, PEM
	CacheBytes  int    `json:"cacheBytes"`  // the DNS cache shared across scans
	MaxInFlight int    `json:"maxInFlight"` // httpapi.Options.MaxInFlight
	RateLimit   int    `json:"rateLimit"`   // per source and minute
	CPUProfile  string `json:"cpuProfile"`  // file of the process's CPU profile; "" = none
	Analytics   string `json:"analytics"`   // the analytics store, sqlite:PATH as mailauth serve's default; "" = none
	// MemProfileRate, when positive, is runtime.MemProfileRate from the
	// start: a heap profile then sees the small objects each request
	// holds (the default samples one in 512 KiB).
	MemProfileRate int `json:"memProfileRate"`
}

// serviceFigures are what only the service process knows, reported when
// it stops.
type serviceFigures struct {
	Cache       resolver.CacheStats `json:"cache"`       // the shared DNS cache's counters
	HitRate     float64             `json:"hitRate"`     // Cache.HitRate()
	NumGC       uint32              `json:"numGC"`       // garbage collections since the start
	GCPercent   int                 `json:"gcPercent"`   // GOGC in effect
	MemoryLimit int64               `json:"memoryLimit"` // soft memory limit in effect, bytes
	GCFromEnv   bool                `json:"gcFromEnv"`   // GOGC or GOMEMLIMIT came from the environment
	Committed   int64               `json:"committed"`   // analytics rows committed (0 without a store)
	Dropped     int64               `json:"dropped"`     // analytics rows dropped
}

// check refuses a configuration that could make the process reach
// anything but 127.0.0.1, or that is incomplete.
func (c serviceConfig) check() error {
	ap, err := netip.ParseAddrPort(c.DNS)
	if err != nil || ap.Addr() != netip.AddrFrom4([4]byte{127, 0, 0, 1}) || ap.Port() == 0 {
		return errors.New("dns: must be 127.0.0.1:port")
	}
	if c.HTTPSPort < 1 || c.HTTPSPort > 65535 {
		return errors.New("httpsPort: must be a port")
	}
	if c.CacheBytes < 0 || c.MaxInFlight < 1 || c.RateLimit < 1 {
		return errors.New("cacheBytes must not be negative, maxInFlight and rateLimit must be positive")
	}
	if c.Analytics != "" && !strings.HasPrefix(c.Analytics, "sqlite:/") {
		return errors.New("analytics: must be sqlite:/absolute/path or empty")
	}
	return nil
}

// serviceMain is the service process's main: it returns the exit code.
func serviceMain(stdin io.Reader, stdout, stderr io.Writer) int {
	in := bufio.NewScanner(stdin)
	in.Buffer(make([]byte, 0, 4096), maxServiceLine)
	svc, err := openService(in)
	if err != nil {
		fmt.Fprintln(stderr, "bench service:", err)
		return 1
	}
	fmt.Fprintln(stdout, svc.addr)
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	cmds := make(chan string)
	go func() {
		defer close(cmds)
		for in.Scan() {
			cmds <- in.Text()
		}
	}()
	for done := false; !done; {
		select {
		case <-ctx.Done():
			done = true
		case c, ok := <-cmds:
			if !ok {
				done = true
				break
			}
			fmt.Fprintln(stdout, svc.command(c))
		}
	}
	if err := json.NewEncoder(stdout).Encode(svc.close()); err != nil {
		fmt.Fprintln(stderr, "bench service:", err)
		return 1
	}
	return 0
}

// service is the running service process.
type service struct {
	addr        string
	srv         *http.Server
	scanner     *mailauth.Scanner
	gc          gctune.Settings
	stopProfile func()
	cfg         serviceConfig
	roots       *x509.CertPool
	floor       *floorAnswer
	store       analytics.Store   // nil without analytics
	writer      *analytics.Writer // nil without analytics
}

// openService reads the configuration line, applies `mailauth serve`'s
// collector settings and serves the scanner on 127.0.0.1.
func openService(in *bufio.Scanner) (*service, error) {
	if !in.Scan() {
		return nil, fmt.Errorf("no configuration line on stdin: %v", in.Err())
	}
	var cfg serviceConfig
	if err := json.Unmarshal(in.Bytes(), &cfg); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	if err := cfg.check(); err != nil {
		return nil, fmt.Errorf("configuration: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM([]byte(cfg.CAPEM)) {
		return nil, errors.New("configuration: caPem holds no certificate")
	}
	if cfg.MemProfileRate > 0 {
		runtime.MemProfileRate = cfg.MemProfileRate
	}
	svc := &service{gc: gctune.Apply(cfg.CacheBytes), stopProfile: func() {}, cfg: cfg, roots: roots, floor: &floorAnswer{}}
	if err := svc.openAnalytics(); err != nil {
		return nil, err
	}
	if cfg.CPUProfile != "" {
		stop, err := startProfile(cfg.CPUProfile)
		if err != nil {
			svc.closeAnalytics()
			return nil, err
		}
		svc.stopProfile = stop
	}
	sc := scannerConfig(cfg.DNS, cfg.HTTPSPort, roots, cfg.CacheBytes, nil)
	sc.MaxConcurrentScans = cfg.MaxInFlight // as mailauth serve: httpapi admits
	svc.scanner = mailauth.New(sc)
	mem := &httpapi.MemoryReturner{} // shared as `mailauth serve` shares it
	opts := httpapi.Options{
		Limiter:        httpapi.NewMemoryLimiter(httpapi.MemoryLimiterOptions{Limit: cfg.RateLimit, MemoryReturner: mem}),
		MaxInFlight:    cfg.MaxInFlight,
		MemoryReturner: mem,
	}
	if svc.store != nil {
		opts.Storage, opts.Recorder = svc.store, svc.writer
	}
	mux := http.NewServeMux()
	mux.Handle("/", httpapi.New(svc.scanner, opts))
	mux.Handle("POST "+floorPath, svc.floor)
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		svc.stopProfile()
		svc.closeAnalytics()
		return nil, fmt.Errorf("listen: %w", err)
	}
	ln := httpapi.LimitListener(raw, httpapi.ListenerOptions{MemoryReturner: mem})
	svc.srv = httpapi.NewServer(mux, ln, log.New(os.Stderr, "bench service: ", 0))
	svc.addr = ln.Addr().String()
	go func() { _ = svc.srv.Serve(ln) }()
	return svc, nil
}

// floorPath is the service process's stand-in for the scan handler in
// the floor phase (floorAnswer).
const floorPath = "/bench/floor"

// openAnalytics opens the analytics store as mailauth serve does by
// default (SQLite, the secret kept in the store, the default labels) and
// starts its writer.
func (s *service) openAnalytics() error {
	if s.cfg.Analytics == "" {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	store, err := analytics.Open(ctx, s.cfg.Analytics)
	if err != nil {
		return fmt.Errorf("analytics: %w", err)
	}
	secret, err := store.Secret(ctx)
	if err != nil {
		_ = store.Close()
		return fmt.Errorf("analytics: %w", err)
	}
	h, err := analytics.NewHasher(secret, analytics.DefaultSourceLabels)
	if err != nil {
		_ = store.Close()
		return fmt.Errorf("analytics: %w", err)
	}
	s.store, s.writer = store, analytics.NewWriter(store, h, analytics.WriterOptions{})
	return nil
}

// closeAnalytics flushes the writer and closes the store.
func (s *service) closeAnalytics() {
	if s.writer != nil {
		ctx, cancel := context.WithTimeout(context.Background(), serviceShutdownTimeout)
		defer cancel()
		_ = s.writer.Close(ctx)
	}
	if s.store != nil {
		_ = s.store.Close()
	}
}

// command runs one protocol command and returns the answer line.
func (s *service) command(line string) string {
	name, arg, _ := strings.Cut(line, " ")
	switch name {
	case "cpu":
		return strconv.FormatInt(int64(cpuTime()), 10)
	case "floor-size":
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return "error: floor-size: not a size"
		}
		s.floor.setSize(n)
		return "ok"
	case "floor-client":
		c, names, _ := strings.Cut(arg, " ")
		conc, err := strconv.Atoi(c)
		if err != nil || conc < 1 {
			return "error: floor-client: not a concurrency"
		}
		return jsonAnswer(measureFloorClient(s.cfg.DNS, s.cfg.HTTPSPort, s.roots, strings.Split(names, ","), conc))
	case "alone":
		check, names, _ := strings.Cut(arg, " ")
		return jsonAnswer(measureAlone(s.cfg.DNS, check, strings.Split(names, ",")))
	case "heap":
		// The cache's answers counted first: the scans in flight add to
		// it while the profile is written.
		cached := s.scanner.DNSCacheStats()
		snap, err := writeHeapProfile(arg)
		if err != nil {
			return "error: " + err.Error()
		}
		snap.CacheEntries, snap.CacheBytes = cached.Entries, cached.Bytes
		b, err := json.Marshal(snap)
		if err != nil {
			return "error: " + err.Error()
		}
		return string(b)
	case "purge":
		s.scanner.PurgeDNSCache()
		var snap heapSnapshot
		if arg == "" {
			snap = memoryNow()
		} else {
			var err error
			if snap, err = writeHeapProfile(arg); err != nil {
				return "error: " + err.Error()
			}
		}
		st := s.scanner.DNSCacheStats()
		snap.CacheEntries, snap.CacheBytes = st.Entries, st.Bytes
		return jsonAnswer(snap, nil)
	}
	return "error: unknown command"
}

// heapSnapshot is the service's memory when its heap profile was taken,
// right after a collection: what the profile does not show (stacks, the
// runtime's own) and what the resident set holds beyond the live heap.
type heapSnapshot struct {
	HeapLive   uint64        `json:"heapLive"`   // bytes of objects the last collection marked live
	HeapInuse  uint64        `json:"heapInuse"`  // bytes in spans holding objects
	HeapIdle   uint64        `json:"heapIdle"`   // bytes of heap spans free, not yet returned to the OS
	StackInuse uint64        `json:"stackInuse"` // bytes of goroutine stacks
	StackStart uint64        `json:"stackStart"` // bytes a new goroutine's stack starts with (the runtime's average of the stacks it scanned)
	Sys        uint64        `json:"sys"`        // bytes obtained from the OS
	Goroutines int           `json:"goroutines"`
	GCTook     time.Duration `json:"gcTook"` // the two collections before the profile
	// CacheEntries is the answers the shared DNS cache held, and
	// CacheBytes what it charged for them against its bound.
	CacheEntries int `json:"cacheEntries"`
	CacheBytes   int `json:"cacheBytes"`
}

// memoryNow collects the garbage twice and returns the process's memory.
func memoryNow() heapSnapshot {
	t0 := time.Now()
	runtime.GC()
	runtime.GC()
	took := time.Since(t0)
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	live := []metrics.Sample{{Name: "/gc/heap/live:bytes"}, {Name: "/gc/stack/starting-size:bytes"}}
	metrics.Read(live)
	return heapSnapshot{HeapLive: live[0].Value.Uint64(), HeapInuse: ms.HeapInuse, HeapIdle: ms.HeapIdle, StackInuse: ms.StackInuse,
		StackStart: live[1].Value.Uint64(), Sys: ms.Sys, Goroutines: runtime.NumGoroutine(), GCTook: took}
}

// writeHeapProfile writes the heap profile after two collections: the
// profile is published one cycle late (runtime/mprof.go), so after a
// single runtime.GC its in-use figures would omit everything allocated
// since the collection before, which under load is the scans in flight.
func writeHeapProfile(path string) (heapSnapshot, error) {
	if path == "" {
		return heapSnapshot{}, errors.New("heap: no file")
	}
	f, err := os.Create(path)
	if err != nil {
		return heapSnapshot{}, fmt.Errorf("heap: %w", err)
	}
	snap := memoryNow()
	if err := pprof.Lookup("heap").WriteTo(f, 0); err != nil {
		f.Close()
		return heapSnapshot{}, fmt.Errorf("heap: %w", err)
	}
	if err := f.Close(); err != nil {
		return heapSnapshot{}, fmt.Errorf("heap: %w", err)
	}
	// The goroutines at the same moment, grouped by stack: where the
	// stack bytes of the snapshot wait.
	g, err := os.Create(strings.TrimSuffix(path, ".prof") + ".goroutine.txt")
	if err != nil {
		return heapSnapshot{}, fmt.Errorf("heap: %w", err)
	}
	if err := pprof.Lookup("goroutine").WriteTo(g, 1); err != nil {
		g.Close()
		return heapSnapshot{}, fmt.Errorf("heap: goroutines: %w", err)
	}
	return snap, g.Close()
}

// close stops serving and returns the figures.
func (s *service) close() serviceFigures {
	ctx, cancel := context.WithTimeout(context.Background(), serviceShutdownTimeout)
	defer cancel()
	_ = s.srv.Shutdown(ctx)
	s.stopProfile()
	var committed, dropped int64
	if s.writer != nil {
		s.closeAnalytics()
		committed, dropped = s.writer.Committed(), s.writer.Dropped()
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	st := s.scanner.DNSCacheStats()
	return serviceFigures{Cache: st, HitRate: st.HitRate(), NumGC: ms.NumGC,
		GCPercent: s.gc.GCPercent, MemoryLimit: s.gc.MemoryLimit, GCFromEnv: s.gc.FromEnv,
		Committed: committed, Dropped: dropped}
}

// jsonAnswer is a command's answer line: v as JSON, or the error.
func jsonAnswer(v any, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "error: " + err.Error()
	}
	return string(b)
}
