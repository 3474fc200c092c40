package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// serviceWaitDelay bounds how long the parent waits for the service
// process to exit once its stdin is closed (it then only shuts its
// listener down) before killing it.
const serviceWaitDelay = 10 * time.Second

// serviceProc is the parent's handle on a running service process (see
// serviceMain for the protocol).
type serviceProc struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	addr string
}

// startServiceProc re-executes this binary as a service process with cfg
// and waits for its listen address.
func startServiceProc(cfg serviceConfig) (*serviceProc, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("service process: %w", err)
	}
	line, err := json.Marshal(cfg)
	if err != nil {
		return nil, fmt.Errorf("service process: %w", err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serviceEnv+"="+serviceRole)
	cmd.Stderr = os.Stderr
	cmd.WaitDelay = serviceWaitDelay
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("service process: %w", err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("service process: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("service process: %w", err)
	}
	p := &serviceProc{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if _, err := fmt.Fprintf(in, "%s\n", line); err != nil {
		p.kill()
		return nil, fmt.Errorf("service process: %w", err)
	}
	if p.addr, err = p.readLine(); err != nil {
		p.kill()
		return nil, fmt.Errorf("service process did not start: %w", err)
	}
	return p, nil
}

// readLine reads one answer line; "error: ..." answers are errors.
func (p *serviceProc) readLine() (string, error) {
	s, err := p.out.ReadString('\n')
	if err != nil {
		return "", err
	}
	s = strings.TrimSuffix(s, "\n")
	if msg, ok := strings.CutPrefix(s, "error: "); ok {
		return "", errors.New(msg)
	}
	return s, nil
}

// ask sends one command and returns its answer.
func (p *serviceProc) ask(cmd string) (string, error) {
	if _, err := fmt.Fprintln(p.in, cmd); err != nil {
		return "", fmt.Errorf("service process: %w", err)
	}
	s, err := p.readLine()
	if err != nil {
		return "", fmt.Errorf("service process, %s: %w", strings.Fields(cmd)[0], err)
	}
	return s, nil
}

// cpu returns the service process's user+system CPU time so far.
func (p *serviceProc) cpu() (time.Duration, error) {
	s, err := p.ask("cpu")
	if err != nil {
		return 0, err
	}
	ns, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("service process, cpu: %q is not a number", s)
	}
	return time.Duration(ns), nil
}

// heapProfile has the service process write its heap profile to path
// and returns its memory at that moment.
func (p *serviceProc) heapProfile(path string) (heapSnapshot, error) {
	var snap heapSnapshot
	s, err := p.ask("heap " + path)
	if err != nil {
		return snap, err
	}
	if err := json.Unmarshal([]byte(s), &snap); err != nil {
		return snap, fmt.Errorf("service process, heap: %w", err)
	}
	return snap, nil
}

// purged has the service process drop its shared DNS cache's answers,
// collect its garbage and return its memory.
// With a path, it also writes its heap profile there, after the purge.
func (p *serviceProc) purged(path string) (heapSnapshot, error) {
	return p.snapshot(strings.TrimSpace("purge " + path))
}

// snapshot sends cmd, answered with a heapSnapshot, and returns it.
func (p *serviceProc) snapshot(cmd string) (heapSnapshot, error) {
	var snap heapSnapshot
	s, err := p.ask(cmd)
	if err != nil {
		return snap, err
	}
	if err := json.Unmarshal([]byte(s), &snap); err != nil {
		return snap, fmt.Errorf("service process, %s: %w", cmd, err)
	}
	return snap, nil
}

// statusBytes returns a kB field of the service process's
// /proc/<pid>/status in bytes (0 when unknown).
func (p *serviceProc) statusBytes(field string) int64 {
	return procStatusBytes(strconv.Itoa(p.cmd.Process.Pid), field)
}

// stop closes the service process's stdin, reads the figures it reports
// and waits for it to exit.
func (p *serviceProc) stop() (serviceFigures, error) {
	_ = p.in.Close()
	var fig serviceFigures
	line, err := p.readLine()
	if err == nil {
		err = json.Unmarshal([]byte(line), &fig)
	}
	if werr := p.cmd.Wait(); err == nil && werr != nil {
		err = werr
	}
	if err != nil {
		return fig, fmt.Errorf("service process, stop: %w", err)
	}
	return fig, nil
}

// kill ends the service process at once (on a failed start or phase).
func (p *serviceProc) kill() {
	_ = p.cmd.Process.Kill()
	_ = p.cmd.Wait()
}
