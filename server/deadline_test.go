package server

import (
	"errors"
	"net"
	"os"
	"testing"
	"time"
)

// testTick is the sweep's tick in these tests.
const testTick = 20 * time.Millisecond

// connPair is a server conn from newListener and the client's end of it,
// on loopback.
func connPair(t *testing.T) (*conn, net.Conn) {
	c, client, _ := connPairOf(t)
	return c, client
}

// connPairOf is connPair, and the listener.
func connPairOf(t *testing.T) (*conn, net.Conn, *listener) {
	t.Helper()
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := newListener(raw, testTick)
	t.Cleanup(func() { l.Close() })
	client, err := net.Dial("tcp", raw.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { client.Close() })
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	// Should a deadline never fire, a read or write does not wait for
	// ever: it ends with another error after 5 s.
	watchdog := time.AfterFunc(5*time.Second, func() { c.(*conn).Conn.Close() })
	t.Cleanup(func() { watchdog.Stop() })
	return c.(*conn), client, l
}

// readEnds reads from c until it fails, and returns how long after start
// that was and the error.
func readEnds(c net.Conn, start time.Time) (time.Duration, error) {
	buf := make([]byte, 64)
	for {
		if _, err := c.Read(buf); err != nil {
			return time.Since(start), err
		}
	}
}

func TestAReadEndsAtItsDeadlineNeverBeforeAndAtMostATickLate(t *testing.T) {
	c, _ := connPair(t)
	const after = 150 * time.Millisecond
	start := time.Now()
	if err := c.SetReadDeadline(start.Add(after)); err != nil {
		t.Fatal(err)
	}
	took, err := readEnds(c, start)
	if !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("the read ended with %v, want a deadline exceeded", err)
	}
	// Never early; late by a tick, and by what a loaded machine adds.
	if took < after || took > after+time.Second {
		t.Fatalf("the read ended after %v, want %v to %v", took, after, after+time.Second)
	}
}

// A request in flight when the server shuts down (its listener closed)
// keeps its timeouts, and the sweep ends with the last connection.
func TestAConnectionOpenWhenTheListenerClosesStillTimesOut(t *testing.T) {
	c, _, l := connPairOf(t)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	const after = 100 * time.Millisecond
	start := time.Now()
	if err := c.SetReadDeadline(start.Add(after)); err != nil {
		t.Fatal(err)
	}
	if took, err := readEnds(c, start); !errors.Is(err, os.ErrDeadlineExceeded) || took < after {
		t.Fatalf("the read ended after %v with %v, want a deadline exceeded after %v", took, err, after)
	}
	_ = c.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.live) != 0 {
		t.Fatalf("%d connections still swept after the last one closed", len(l.live))
	}
}

func TestADeadlineMovedLaterBeforeItPassesDoesNotEndTheRead(t *testing.T) {
	c, client := connPair(t)
	start := time.Now()
	if err := c.SetReadDeadline(start.Add(60 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if err := c.SetReadDeadline(start.Add(300 * time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	// The client writes at 150 ms, past the first deadline: the read gets
	// it.
	go func() {
		time.Sleep(150 * time.Millisecond)
		_, _ = client.Write([]byte("x"))
	}()
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil {
		t.Fatalf("the read ended with %v after %v: the first deadline was kept", err, time.Since(start))
	}
	took, err := readEnds(c, start)
	if !errors.Is(err, os.ErrDeadlineExceeded) || took < 300*time.Millisecond {
		t.Fatalf("the next read ended after %v with %v, want the second deadline", took, err)
	}
}

func TestAPastDeadlineEndsAReadAtOnceAndAClearedOneLetsReadsOn(t *testing.T) {
	c, client := connPair(t)
	time.Sleep(2 * testTick) // a sweep or two
	if err := c.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if took, err := readEnds(c, start); !errors.Is(err, os.ErrDeadlineExceeded) || took > 500*time.Millisecond {
		t.Fatalf("a read past its deadline ended after %v with %v, want at once", took, err)
	}
	if err := c.SetReadDeadline(time.Time{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Write([]byte("x")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil {
		t.Fatalf("a read with its deadline cleared: %v", err)
	}
}

func TestAWriteThatCannotFinishEndsAtItsDeadline(t *testing.T) {
	c, _ := connPair(t) // the client reads nothing
	const after = 200 * time.Millisecond
	start := time.Now()
	if err := c.SetWriteDeadline(start.Add(after)); err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 1<<20)
	var err error
	for time.Since(start) < 5*time.Second {
		if _, err = c.Write(chunk); err != nil {
			break
		}
	}
	took := time.Since(start)
	if !errors.Is(err, os.ErrDeadlineExceeded) || took < after || took > after+time.Second {
		t.Fatalf("the writes ended after %v with %v, want a deadline exceeded after %v", took, err, after)
	}
}

func TestTheTickIsATenthOfTheShortestTimeoutWithinBounds(t *testing.T) {
	for _, tc := range []struct {
		timeouts []time.Duration
		want     time.Duration
	}{
		{[]time.Duration{10 * time.Second, 60 * time.Second, 30 * time.Second}, maxTick},
		{[]time.Duration{time.Second, time.Second, time.Second}, 100 * time.Millisecond},
		{[]time.Duration{time.Millisecond}, minTick},
		{nil, maxTick},
	} {
		if got := tickFor(tc.timeouts...); got != tc.want {
			t.Errorf("tickFor(%v) = %v, want %v", tc.timeouts, got, tc.want)
		}
	}
}
