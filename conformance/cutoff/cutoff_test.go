package cutoff

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// get sends GET url through l's transport and reads the whole answer.
func get(t *testing.T, ctx context.Context, l Limits, url string) (*http.Response, []byte, error) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := (&http.Client{Transport: l.Transport(nil)}).Do(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp, body, err
}

func TestAnAnswerLongerThanTheLimitIsCutThere(t *testing.T) {
	chunk := bytes.Repeat([]byte("x"), 32<<10)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/exact":
			w.Write(bytes.Repeat([]byte("x"), 64<<10))
		case "/endless":
			for {
				if _, err := w.Write(chunk); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}))
	defer srv.Close()
	l := Limits{MaxAnswer: 64 << 10, Timeout: 10 * time.Second}

	if _, body, err := get(t, context.Background(), l, srv.URL+"/exact"); err != nil || len(body) != 64<<10 {
		t.Fatalf("an answer of exactly the limit: %d bytes, %v", len(body), err)
	}
	resp, body, err := get(t, context.Background(), l, srv.URL+"/endless")
	var cut *CutError
	if !errors.As(err, &cut) {
		t.Fatalf("an endless answer read to %d bytes, error %v; want a *CutError", len(body), err)
	}
	if len(body) != 64<<10 || resp.StatusCode != http.StatusOK {
		t.Errorf("the part before the cut: %d bytes, status %d; want the limit, 64 KiB, and the answer's status", len(body), resp.StatusCode)
	}
	if cut.Deadline || cut.Limit != 64<<10 || cut.Read != 64<<10 || cut.Method != "GET" || cut.Path != "/endless" {
		t.Errorf("the cut: %+v", *cut)
	}
	if msg := cut.Error(); !strings.HasPrefix(msg, "the answer to GET /endless was cut at 64 KiB after ") || !strings.Contains(msg, "CONFORMANCE_MAX_ANSWER") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestTheLimitCountsTheBytesAfterDecompression(t *testing.T) {
	var bomb bytes.Buffer
	zw := gzip.NewWriter(&bomb)
	zeros := make([]byte, 1<<20)
	for range 16 {
		zw.Write(zeros)
	}
	zw.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Header().Set("Content-Type", "application/json")
		w.Write(bomb.Bytes())
	}))
	defer srv.Close()
	limit := int64(1 << 20)
	if int64(bomb.Len()) >= limit {
		t.Fatalf("the bomb is %d bytes compressed: the test needs it below the limit", bomb.Len())
	}
	resp, body, err := get(t, context.Background(), Limits{MaxAnswer: limit}, srv.URL+"/bomb")
	var cut *CutError
	if !errors.As(err, &cut) || cut.Deadline || int64(len(body)) != limit {
		t.Fatalf("16 MiB of zeros in %d gzipped bytes: read %d bytes, error %v; want a cut at 1 MiB", bomb.Len(), len(body), err)
	}
	if !resp.Uncompressed {
		t.Errorf("the transport did not decompress the answer itself: the test does not test what it says")
	}
}

func TestAnAnswerNotOverWithinTheTimeoutIsCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		for {
			if _, err := w.Write([]byte(" ")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	start := time.Now()
	resp, body, err := get(t, context.Background(), Limits{Timeout: 500 * time.Millisecond}, srv.URL+"/drip")
	var cut *CutError
	if !errors.As(err, &cut) || !cut.Deadline {
		t.Fatalf("a drip: read %d bytes, error %v; want a *CutError by the deadline", len(body), err)
	}
	if took := time.Since(start); took > 5*time.Second || cut.Took < 500*time.Millisecond {
		t.Errorf("the cut came after %s (it says %s); want after the timeout of 0.5 s, and soon", took, cut.Took)
	}
	if len(body) == 0 || cut.Read != int64(len(body)) || resp.Header.Get("Content-Type") != "application/json" {
		t.Errorf("the part before the cut: %d bytes (it says %d), headers %v", len(body), cut.Read, resp.Header)
	}
	if msg := cut.Error(); !strings.Contains(msg, "was cut at ") || !strings.Contains(msg, " B after 0.") || !strings.Contains(msg, "not over within the 0.5 s a request may take (-timeout, CONFORMANCE_TIMEOUT)") {
		t.Errorf("Error() = %q", msg)
	}
}

// TestNoHeadersWithinTheTimeoutIsNoAnswerAndTheRunsOwnEndIsNoCut: a target
// that sends nothing did not answer (an error of the round trip, not a
// cut); an answer the run stops reading (its context cancelled, or its own
// deadline first) was not cut by the target.
func TestNoHeadersWithinTheTimeoutIsNoAnswerAndTheRunsOwnEndIsNoCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/silent" {
			<-r.Context().Done()
			return
		}
		w.Write([]byte("{"))
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	l := Limits{Timeout: 300 * time.Millisecond}
	_, _, err := get(t, context.Background(), l, srv.URL+"/silent")
	var cut *CutError
	if err == nil || errors.As(err, &cut) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no answer within 0.3 s (-timeout, CONFORMANCE_TIMEOUT)") {
		t.Errorf("no headers within the timeout: %v; want the round trip's deadline error, saying so", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	if _, _, err := get(t, ctx, l, srv.URL+"/stalled"); err == nil || errors.As(err, &cut) {
		t.Errorf("the run cancelled: %v; want its error, not a cut", err)
	}
	ctx, cancel = context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, _, err := get(t, ctx, Limits{Timeout: 10 * time.Second}, srv.URL+"/stalled"); err == nil || errors.As(err, &cut) {
		t.Errorf("the run's own deadline first: %v; want its error, not a cut", err)
	}
}

func TestSizesAndTimesAreReadAndWrittenAsPeopleWriteThem(t *testing.T) {
	for in, want := range map[string]int64{
		"4MiB": 4 << 20, "4 MiB": 4 << 20, "512KiB": 512 << 10, "1048576": 1 << 20, "2mib": 2 << 20,
		"1GiB": 1 << 30, "100B": 100, "1MB": 1_000_000, "5kb": 5000, "1.5MiB": 3 << 19,
	} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "0", "-1MiB", "4 MeB", "MiB", "1e3", "2GiB", "99999999999999999999"} {
		if got, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) = %d; want an error", bad, got)
		}
	}
	for n, want := range map[int64]string{4 << 20: "4 MiB", 512 << 10: "512 KiB", 12: "12 B", 3 << 19: "1.5 MiB", 1000: "1000 B", 1 << 30: "1 GiB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
	for d, want := range map[time.Duration]string{4 * time.Millisecond: "0.004 s", 347 * time.Millisecond: "0.35 s", 2014 * time.Millisecond: "2 s", 30 * time.Second: "30 s", 30540 * time.Millisecond: "30.5 s"} {
		if got := Seconds(d); got != want {
			t.Errorf("Seconds(%s) = %q, want %q", d, got, want)
		}
	}
}

func TestExcerptKeepsTheStartOfACutBody(t *testing.T) {
	if got := Excerpt([]byte("short")); string(got) != "short" {
		t.Errorf("Excerpt of a short body = %q", got)
	}
	long := bytes.Repeat([]byte("y"), 1<<20)
	got := string(Excerpt(long))
	if !strings.HasPrefix(got, strings.Repeat("y", excerptSize)+"\n") || len(got) > excerptSize+100 || !strings.Contains(got, "1 MiB") {
		t.Errorf("Excerpt of 1 MiB: %d bytes, ending %q", len(got), got[max(0, len(got)-80):])
	}
}
