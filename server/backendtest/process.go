package backendtest

import (
	"os/exec"
	"syscall"
	"time"
)

// process is a server this package started, as a child process.
type process struct {
	cmd    *exec.Cmd
	exited chan struct{} // closed when it has exited
	err    error         // what Wait returned, once exited is closed
}

// startProcess starts cmd and watches for its exit.
func startProcess(cmd *exec.Cmd) (*process, error) {
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	return p, nil
}

// stop sends sig, the server's signal to shut down, and waits for the
// exit; after grace, it kills the process.
func (p *process) stop(sig syscall.Signal, grace time.Duration) {
	_ = p.cmd.Process.Signal(sig)
	select {
	case <-p.exited:
	case <-time.After(grace):
		_ = p.cmd.Process.Kill()
		<-p.exited
	}
}

// waitReady calls ready every pause until it succeeds, the process exits
// or wait has passed. When the process exits first, it reports exited
// with the error of its exit; when wait passes, the last error of ready.
func (p *process) waitReady(ready func() error, wait, pause time.Duration) (exited bool, err error) {
	deadline := time.Now().Add(wait)
	for {
		err := ready()
		if err == nil {
			return false, nil
		}
		select {
		case <-p.exited:
			return true, p.err
		default:
		}
		if time.Now().After(deadline) {
			return false, err
		}
		time.Sleep(pause)
	}
}
