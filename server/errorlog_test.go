package server

import (
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"eventsvc/server/event"
	"eventsvc/server/servertest"
)

// brokenStore is a real event store whose List fails, with an error that
// repeats a secret of the request, and whose Get panics, to reach the
// server's answers to its own failures.
type brokenStore struct {
	*event.Memory
	secret string
}

func (b brokenStore) List(event.Query) (event.Page, error) {
	return event.Page{}, fmt.Errorf("index of %s: %w", b.secret, errors.New("disk on fire"))
}

func (b brokenStore) Get(int64) (event.Event, error) {
	panic("index out of range while reading " + b.secret)
}

// TestAServerFailureIsLoggedWithItsCauseMasked: a 500 says nothing of its
// cause to the caller, and logs it, with the request's secrets masked; a
// panic is such a failure too, and the server goes on answering.
func TestAServerFailureIsLoggedWithItsCauseMasked(t *testing.T) {
	var log servertest.Log
	store := brokenStore{Memory: event.NewMemory()}
	// The error log works without the request log (-quiet).
	addr, _ := listenWith(t, Options{Events: &store, ErrorLogger: slog.New(slog.NewTextHandler(&log, nil))})
	token := tokenFor(t, addr, "user@email.com", "user")
	store.secret = token
	h := map[string]string{"Authorization": "Bearer " + token}

	resp, body := rawRequest(t, addr, "GET", "/api/events", h, "")
	if resp.StatusCode != http.StatusInternalServerError || strings.Contains(body, "disk") || strings.Contains(body, token) {
		t.Fatalf("a failed list: %d %s", resp.StatusCode, body)
	}
	resp, body = rawRequest(t, addr, "GET", "/api/events/1", h, "")
	if resp.StatusCode != http.StatusInternalServerError || strings.Contains(body, "index") {
		t.Fatalf("a panic: %d %s", resp.StatusCode, body)
	}
	if resp, _ := rawRequest(t, addr, "GET", "/api", nil, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("after a panic: GET /api %d", resp.StatusCode)
	}
	text := log.String()
	for _, want := range []string{
		"level=ERROR", "method=GET path=/api/events status=500", "disk on fire", "index of ***",
		"path=/api/events/1 status=500", "panic: index out of range while reading ***",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the error log lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, token) {
		t.Errorf("the error log holds the token:\n%s", text)
	}
	if strings.Count(text, "\n") != 2 {
		t.Errorf("want two lines, one per failure:\n%s", text)
	}
}

// TestAFailureCauseIsMaskedWhateverTheCaseOfTheFormsMediaType: the secret
// fields of a form are masked in the cause of a failure, however the
// request writes application/x-www-form-urlencoded.
func TestAFailureCauseIsMaskedWhateverTheCaseOfTheFormsMediaType(t *testing.T) {
	var log servertest.Log
	store := brokenStore{Memory: event.NewMemory(), secret: "the-password-of-the-form"}
	addr, _ := listenWith(t, Options{Events: &store, ErrorLogger: slog.New(slog.NewTextHandler(&log, nil))})
	h := map[string]string{"Content-Type": "Application/X-WWW-Form-Urlencoded; Charset=UTF-8"}
	if resp, _ := rawRequest(t, addr, "GET", "/api/events", h, "password=the-password-of-the-form"); resp.StatusCode != http.StatusInternalServerError {
		t.Fatalf("a failed list: %d", resp.StatusCode)
	}
	if text := log.String(); strings.Contains(text, "the-password-of-the-form") || !strings.Contains(text, "index of ***") {
		t.Fatalf("the error log does not mask the form's password:\n%s", text)
	}
}
