package explore

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/origin/origintest"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
)

// TestTheExplorationSendsCredentialsOnlyToTheTargetsOrigin explores a
// target whose creations answer with a Location at another origin
// (another loopback port), where its links to its events lead too: the
// user creates an event, then reads, follows and updates it as its
// manager. The exploration goes there without the bearer token, and every
// report names that origin.
func TestTheExplorationSendsCredentialsOnlyToTheTargetsOrigin(t *testing.T) {
	inst, err := inprocess.Launcher{Credentials: target.DemoCredentials, RealTime: true}.Launch(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inst.Close() })
	x := origintest.Start(t, inst.BaseURL(), "/api/events/")
	tgt := remote(x.URL)
	tgt.Timeout = 5 * time.Second
	replay := &Replay{Actions: []Action{
		{Kind: KindCreate, As: AsUser},
		{Kind: KindFollow, As: AsUser, From: "event", Rel: "self"},
		{Kind: KindRead, As: AsUser},
		{Kind: KindUpdate, As: AsUser},
	}}
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: tgt, Replay: replay, MaxActions: 10, ReportDir: dir, Output: &out})
	if rep == nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	requests, credentials := x.Seen()
	if requests == 0 {
		t.Fatalf("the exploration never went to the other origin:\n%s", out.String())
	}
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %q in %d requests", credentials, requests)
	}

	i := slices.IndexFunc(rep.Foreign, func(f origin.Foreign) bool { return f.Origin == x.Other })
	if i < 0 || rep.Foreign[i].Requests != requests || !slices.Contains(rep.Foreign[i].Via, "named by the Location of POST /api/events") {
		t.Errorf("the report says %+v, want %s with %d requests, named by the Location of POST /api/events", rep.Foreign, x.Other, requests)
	}
	if !strings.Contains(out.String(), "\n  "+x.Other+": ") {
		t.Errorf("the console does not name %s:\n%s", x.Other, out.String())
	}
	reporttest.Foreign(t, dir, x.Other)
	reporttest.NoCredentialsTo(t, dir, x.Other)
}
