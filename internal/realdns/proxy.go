package realdns

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// maxMessage is the largest DNS message over UDP or TCP.
const maxMessage = 65535

// startDelay starts a UDP and TCP proxy on 127.0.0.1 that forwards every
// DNS message to upstream and passes the reply back delay later: a name
// server that takes delay to answer. It returns the proxy's address.
func startDelay(tb testing.TB, upstream string, delay time.Duration) string {
	tb.Helper()
	port := freePort(tb)
	addr := net.JoinHostPort("127.0.0.1", itoa(port))
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		tb.Fatalf("delay proxy: %v", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = pc.Close()
		tb.Fatalf("delay proxy: %v", err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	wg.Add(2)
	go func() { defer wg.Done(); delayUDP(pc, upstream, delay, stop, &wg) }()
	go func() { defer wg.Done(); delayTCP(ln, upstream, delay, stop, &wg) }()
	tb.Cleanup(func() {
		close(stop)
		_ = pc.Close()
		_ = ln.Close()
		wg.Wait()
	})
	return addr
}

// delayUDP serves the UDP side of the delaying proxy until pc is closed.
func delayUDP(pc net.PacketConn, upstream string, delay time.Duration, stop <-chan struct{}, wg *sync.WaitGroup) {
	buf := make([]byte, maxMessage)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		q := append([]byte(nil), buf[:n]...)
		wg.Add(1)
		go func() {
			defer wg.Done()
			reply, err := exchangeUDP(upstream, q)
			if err != nil || !sleep(delay, stop) {
				return
			}
			_, _ = pc.WriteTo(reply, from)
		}()
	}
}

// exchangeUDP sends one message to upstream and returns its reply.
func exchangeUDP(upstream string, q []byte) ([]byte, error) {
	c, err := net.Dial("udp", upstream)
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(q); err != nil {
		return nil, err
	}
	buf := make([]byte, maxMessage)
	n, err := c.Read(buf)
	if err != nil {
		return nil, err
	}
	return buf[:n], nil
}

// delayTCP serves the TCP side of the delaying proxy until ln is closed.
func delayTCP(ln net.Listener, upstream string, delay time.Duration, stop <-chan struct{}, wg *sync.WaitGroup) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { _ = c.Close() }()
			go func() { <-stop; _ = c.Close() }()
			for {
				q, err := readTCP(c)
				if err != nil {
					return
				}
				reply, err := exchangeTCP(upstream, q)
				if err != nil || !sleep(delay, stop) {
					return
				}
				if err := writeTCP(c, reply); err != nil {
					return
				}
			}
		}()
	}
}

// exchangeTCP sends one message to upstream over a new TCP connection and
// returns its reply.
func exchangeTCP(upstream string, q []byte) ([]byte, error) {
	c, err := net.DialTimeout("tcp", upstream, 5*time.Second)
	if err != nil {
		return nil, err
	}
	defer func() { _ = c.Close() }()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if err := writeTCP(c, q); err != nil {
		return nil, err
	}
	return readTCP(c)
}

// readTCP reads one length-prefixed DNS message.
func readTCP(r io.Reader) ([]byte, error) {
	var n uint16
	if err := binary.Read(r, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, errors.New("empty message")
	}
	msg := make([]byte, n)
	_, err := io.ReadFull(r, msg)
	return msg, err
}

// writeTCP writes one length-prefixed DNS message.
func writeTCP(w io.Writer, msg []byte) error {
	if len(msg) > maxMessage {
		return errors.New("message too long")
	}
	buf := make([]byte, 2+len(msg))
	binary.BigEndian.PutUint16(buf, uint16(len(msg)))
	copy(buf[2:], msg)
	_, err := w.Write(buf)
	return err
}

// sleep waits d and reports true, or reports false when stop closes first.
func sleep(d time.Duration, stop <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-stop:
		return false
	}
}

// startBlackhole starts a name server on 127.0.0.1 that reads every UDP
// query and TCP connection and never answers. It returns its address.
func startBlackhole(tb testing.TB) string {
	tb.Helper()
	port := freePort(tb)
	addr := net.JoinHostPort("127.0.0.1", itoa(port))
	pc, err := net.ListenPacket("udp", addr)
	if err != nil {
		tb.Fatalf("blackhole: %v", err)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		_ = pc.Close()
		tb.Fatalf("blackhole: %v", err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(2)
	go func() {
		defer wg.Done()
		buf := make([]byte, maxMessage)
		for {
			if _, _, err := pc.ReadFrom(buf); err != nil {
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never read or answered
			mu.Unlock()
		}
	}()
	tb.Cleanup(func() {
		_ = pc.Close()
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return addr
}

// deadAddr returns an address of 127.0.0.1 where nothing listens: UDP
// queries draw an ICMP port unreachable, TCP connections are refused.
func deadAddr(tb testing.TB) string {
	tb.Helper()
	return net.JoinHostPort("127.0.0.1", itoa(freePort(tb)))
}
