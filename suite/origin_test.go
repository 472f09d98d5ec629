package suite

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/origin"
	"eventsvc/conformance/origin/origintest"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
)

// TestCredentialsGoOnlyToTheTargetsOrigin runs the scenarios that create
// and update events against a target whose creations answer with a
// Location at another origin (another loopback port), and whose links to
// its events lead there too. The run goes there, as the links say, but
// without the bearer token or the target's cookies; and every report
// names that origin.
func TestCredentialsGoOnlyToTheTargetsOrigin(t *testing.T) {
	x := origintest.Start(t, startReference(t, target.ServerConfig{}, nil), "/api/events/")
	dir := t.TempDir()
	var out bytes.Buffer
	tgt := remote(x.URL)
	tgt.Timeout = 5 * time.Second
	rep, err := Run(Options{Target: tgt, Tags: "@spec and @writes and (@API-6 or @API-9)", ReportDir: dir, Output: &out})
	if rep == nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	requests, credentials := x.Seen()
	if requests == 0 {
		t.Fatalf("the run never went to the other origin:\n%s", out.String())
	}
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %d credentials in %d requests: %q", len(credentials), requests, credentials)
	}

	i := slices.IndexFunc(rep.Foreign, func(f origin.Foreign) bool { return f.Origin == x.Other })
	if i < 0 || rep.Foreign[i].Requests != requests || !slices.Contains(rep.Foreign[i].Via, "named by the Location of POST /api/events") {
		t.Errorf("the report says %+v, want %s with %d requests, named by the Location of POST /api/events", rep.Foreign, x.Other, requests)
	}
	if !strings.Contains(out.String(), "\n  "+x.Other+": ") {
		t.Errorf("the console does not name %s:\n%s", x.Other, out.String())
	}
	if f := reporttest.Foreign(t, dir, x.Other); f.Requests != requests {
		t.Errorf("conformance.json says %d requests went to %s, the other listener saw %d", f.Requests, x.Other, requests)
	}
	if rep.Counts()[report.Failed] > 0 && reporttest.NoCredentialsTo(t, dir, x.Other) == 0 {
		t.Errorf("no reproduction script goes to %s, as the failed scenarios did", x.Other)
	}
}

// TestThePreflightSendsNoCredentialsToAnotherOrigin: the target's API
// root sends the run to an event list at another origin. The preflight
// reads it there, without the token, so the list offers it no
// create-new-event link, and the run cannot start; the reports say where
// the preflight went.
func TestThePreflightSendsNoCredentialsToAnotherOrigin(t *testing.T) {
	x := origintest.Start(t, startReference(t, target.ServerConfig{}, nil), "/api/events")
	dir := t.TempDir()
	var out bytes.Buffer
	tgt := remote(x.URL)
	tgt.Timeout = 5 * time.Second
	rep, err := Run(Options{Target: tgt, Tags: "@spec and @writes and @API-6", ReportDir: dir, Output: &out})
	requests, credentials := x.Seen()
	if requests == 0 {
		t.Fatalf("the preflight never went to the other origin: %v", err)
	}
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %q", credentials)
	}
	if !errors.Is(err, target.ErrPreflight) || rep == nil || rep.Outcome != report.OutcomeNotStarted {
		t.Fatalf("Run = %v, want the preflight to stop it\n%s", err, out.String())
	}
	if want := "the event list is at " + x.Other + ", another origin than BASE_URL's, where the run sends no credentials"; !strings.Contains(err.Error(), want) {
		t.Errorf("the preflight's error does not say %q:\n%v", want, err)
	}
	reporttest.Foreign(t, dir, x.Other)
}

// TestThePreflightSaysWhenTheCreateLinkLeadsToAnotherOrigin: the event
// list's create-new-event link names another origin, which refuses a
// creation without a token. The preflight sent it none, and says why the
// creation failed rather than blaming the event body.
func TestThePreflightSaysWhenTheCreateLinkLeadsToAnotherOrigin(t *testing.T) {
	var mu sync.Mutex
	var sent []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		sent = append(sent, r.Header.Values("Authorization")...)
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer other.Close()
	tgt := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api":
			w.Write([]byte(`{"_links": {"events": {"href": "/api/events"}}}`))
		case "/oauth/token":
			w.Write([]byte(`{"access_token": "a-token-of-the-target", "token_type": "bearer"}`))
		case "/api/events":
			w.Write([]byte(`{"_links": {"create-new-event": {"href": "` + other.URL + `/api/events"}}}`))
		}
	}))
	defer tgt.Close()
	log := &origin.Log{}
	checked := remote(tgt.URL)
	checked.Origins = log
	_, err := target.Preflight(checked, writing)
	if want := "the create-new-event link is at " + other.URL + ", another origin than BASE_URL's, where the run sends no credentials"; !errors.Is(err, target.ErrPreflight) || !strings.Contains(err.Error(), want) {
		t.Errorf("Preflight = %v, want it to say %q", err, want)
	}
	mu.Lock()
	if len(sent) > 0 {
		t.Errorf("the other origin was sent %d Authorization headers", len(sent))
	}
	mu.Unlock()
	if f := log.Foreign(); len(f) != 1 || f[0].Origin != other.URL || f[0].Requests != 1 {
		t.Errorf("the log says %+v", f)
	}
}
