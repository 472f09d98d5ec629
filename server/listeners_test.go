package server

import (
	"net"
	"testing"
)

// TestListenersCloseWhatTheyServeAndWhatComesAfter: Close closes a
// listener being served, whose Serve then returns nil, and one given to
// Serve after it, at once.
func TestListenersCloseWhatTheyServeAndWhatComesAfter(t *testing.T) {
	var l Listeners
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() {
		served <- l.Serve(ln, func(ln net.Listener) error {
			for {
				if _, err := ln.Accept(); err != nil {
					return err
				}
			}
		})
	}()
	for { // until Serve holds it
		l.mu.Lock()
		n := len(l.all)
		l.mu.Unlock()
		if n == 1 {
			break
		}
	}
	l.Close()
	if err := <-served; err != nil {
		t.Errorf("Serve after Close = %v, want nil", err)
	}
	late, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Serve(late, func(net.Listener) error { t.Error("a listener given after Close was served"); return nil }); err != nil {
		t.Errorf("Serve of a late listener = %v", err)
	}
	if _, err := late.Accept(); err == nil {
		t.Error("the late listener is open")
	}
}
