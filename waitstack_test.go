package mailauth

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mailauth/mailauth/internal/gostack"
	"github.com/mailauth/mailauth/internal/testlab"
)

// TestScanNeedsLittleOfTheCallersStack: a scan and a sending-IP check
// run their deep work (starting the checks' lookups down to the DNS
// client's socket, concluding: the control question, the leak guard,
// the JSON) apart from the caller's goroutine, so the caller needs only
// the room for the frames it waits in. In the service the caller is a
// request's goroutine, 8 KiB, which waits under about 4 KiB of net/http's
// and the middleware's frames: room it must not outgrow, or its stack
// becomes 16 KiB for the connection's life.
//
// stackRoomNeeded measures the room on the caller's stack under which
// the call never moved it (grew), in steps of stackStep, with the real
// DNS client over loopback; the room includes the runtime's stack guard
// (800 bytes, twice that with the race detector, whose instrumentation
// also deepens frames). Measured, on a quiet machine and beside four
// CPU hogs: 2.5-3.25 KiB, 4.5-5.5 KiB with the race detector; with the
// checks started and the result concluded on the caller's stack, 5.75-6.25
// KiB and 9.75-11 KiB. The bounds (4.5 and 7.5 KiB) lie between.
func TestScanNeedsLittleOfTheCallersStack(t *testing.T) {
	t.Parallel()
	lab := testlab.Start(t, []string{scanZone}, policies)
	s := New(Config{Resolver: lab.DNS.Client(5 * time.Second), HTTPSPort: lab.HTTPSPort,
		RootCAs: lab.RootCAs, AllowLoopbackTargets: true})
	ctx := context.Background()
	bound := 4608
	if gostack.RaceEnabled {
		bound = 7680
	}
	for name, call := range map[string]func() error{
		"scan": func() error {
			_, _, err := s.ScanEncoded(ctx, ScanRequest{Domain: "good.example.com", DKIMSelector: "s1", SendingIP: "8.8.8.8"})
			return err
		},
		"sending IP": func() error {
			_, _, err := s.CheckIPEncoded(ctx, mustAddr(t, "8.8.8.8"))
			return err
		},
	} {
		t.Run(name, func(t *testing.T) {
			require.NoError(t, call()) // the shared state (cache, resolver properties) warmed as in a running service
			room := stackRoomNeeded(t, call)
			t.Logf("room needed: %d bytes", room)
			require.LessOrEqual(t, room, bound, "the call grew a caller's stack that had %d bytes left", room-stackStep)
		})
	}
}

// stackStep is stackRoomNeeded's resolution.
const stackStep = 256

// stackRoomNeeded returns the least room, in steps of stackStep up to
// 12 KiB, left on a goroutine's 32 KiB stack under which call returned
// without the stack moving (growing), in each of three tries. A room so
// small that the frames which fill the stack grew it already is passed
// over.
func stackRoomNeeded(t *testing.T, call func() error) int {
	t.Helper()
	for room := stackStep; room <= 12<<10; room += stackStep {
		ok := true
		for range 3 {
			moved, filled, err := movesWith(room, call)
			require.NoError(t, err)
			if moved || !filled {
				ok = false
				break
			}
		}
		if ok {
			return room
		}
	}
	t.Fatalf("the call moved the stack with 12 KiB left")
	return 0
}

// movesWith runs call on a new goroutine whose stack is 32 KiB with about
// room bytes left, and reports whether the stack moved under call;
// filled false: filling the stack moved it already (room too small).
func movesWith(room int, call func() error) (moved, filled bool, err error) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		grow32K(0)
		top := gostack.Where()
		descend((32<<10-room)/stackStep, func() {
			before := gostack.Where()
			err = call()
			moved = gostack.Where() != before
		})
		filled = moved || gostack.Where() == top
	}()
	<-done
	return moved, filled, err
}

// grow32K makes the calling goroutine's stack 32 KiB (a 24 KiB frame,
// with the runtime's guard, rounded up to a power of two) without
// writing the frame (see gostack.Reserve8K).
//
//go:noinline
func grow32K(i int) byte {
	if i != 0 {
		var buf [24 << 10]byte
		return buf[i%len(buf)]
	}
	return 0
}

// descend calls f under n frames of about stackStep bytes each.
//
//go:noinline
func descend(n int, f func()) byte {
	var pad [stackStep - 48]byte // the rest of stackStep: the call's return address, frame pointer, arguments and locals
	if n <= 0 {
		f()
		return pad[0]
	}
	pad[n%len(pad)] = byte(n)
	return descend(n-1, f) + pad[n%len(pad)]
}
