package steps

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/target"
)

// TestACutAnswerFailsItsStepWhateverTheStepMadeOfIt: an answer longer than
// MaxAnswer is no answer to send, and fails the step it came in even when
// the step let the failure go (a probe); a step that failed already keeps
// its own failure, and the cut is left for the runner.
func TestACutAnswerFailsItsStepWhateverTheStepMadeOfIt(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/small" {
			w.Write([]byte(`{"name": "small"}`))
			return
		}
		w.Write(bytes.Repeat([]byte(" "), 64<<10))
	}))
	defer srv.Close()
	s := &scenario{target: target.Target{BaseURL: srv.URL, MaxAnswer: 1 << 10}}
	if err := s.start(); err != nil {
		t.Fatal(err)
	}

	x, err := s.send(s.e.GET("/big"))
	var cut *cutoff.CutError
	if x != nil || !errors.As(err, &cut) || !strings.Contains(err.Error(), "GET "+srv.URL+"/big") {
		t.Fatalf("send of an answer too long = %v, %v; want no exchange, and the cut with its exchange", x, err)
	}
	ctx, err := s.afterStep(context.Background(), nil) // the step let it go
	if !errors.As(err, &cut) || !errors.As(CutOf(ctx), &cut) {
		t.Errorf("a step that let the cut go: %v, CutOf %v; want it failed with the cut", err, CutOf(ctx))
	}

	if _, err := s.send(s.e.GET("/big")); err == nil {
		t.Fatal("the second answer too long was sent")
	}
	failed := errors.New("the step's own failure")
	ctx, err = s.afterStep(context.Background(), failed)
	if err != nil || CutOf(ctx) == nil {
		t.Errorf("a step that failed already: %v, CutOf %v; want no second failure, and the cut in the context", err, CutOf(ctx))
	}

	if x, err := s.send(s.e.GET("/small")); err != nil || x.body != `{"name": "small"}` {
		t.Fatalf("an answer within the bound: %v, %v", x, err)
	}
	if ctx, err := s.afterStep(context.Background(), nil); err != nil || CutOf(ctx) != nil {
		t.Errorf("a step with no answer cut: %v, CutOf %v", err, CutOf(ctx))
	}
}
