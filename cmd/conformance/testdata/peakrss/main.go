// Command peakrss runs a command with its address space bounded, and
// writes the command's peak resident memory, in bytes, to a file:
//
//	peakrss FILE MAX-ADDRESS-SPACE COMMAND [ARG…]
//
// It exits with the command's status. It stands between a test and the
// command it measures because on Linux a process started by a Go program
// (vfork) counts the peak memory of its parent as its own: this one is
// small, a test process (under the race detector above all) is not.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"syscall"
)

func main() {
	if len(os.Args) < 4 {
		fmt.Fprintln(os.Stderr, "usage: peakrss FILE MAX-ADDRESS-SPACE COMMAND [ARG…]")
		os.Exit(2)
	}
	limit, err := strconv.ParseUint(os.Args[2], 10, 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit}); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss: bound the address space:", err)
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[3], os.Args[4:]...)
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss
	if runtime.GOOS != "darwin" {
		rss *= 1024 // KiB but on macOS, where it is bytes
	}
	if err := os.WriteFile(os.Args[1], []byte(strconv.FormatInt(int64(rss), 10)), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(2)
	}
	os.Exit(cmd.ProcessState.ExitCode())
}
