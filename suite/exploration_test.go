package suite

import (
	"bytes"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/origin/origintest"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
	"eventsvc/server/throttle"
)

// TestAnInProcessRunExploresOneServerAfterItsScenarios: a run of the
// in-process reference server given an exploration runs its scenarios, each
// against a server of its own, then explores one server
// (TestTheExplorationsServerAgesAsADeployedOneDoes), and checks the
// reference choices too; it passes, with the sequences reported after the
// scenarios and the run's Selection naming the seed. Without one,
// as go test runs the suite, it explores nothing.
func TestAnInProcessRunExploresOneServerAfterItsScenarios(t *testing.T) {
	for _, explores := range []bool{true, false} {
		o, err := FromEnv(func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		o.Tags, o.DefaultTags, o.Output, o.ReportDir = "@TOK-2", false, &out, t.TempDir()
		if explores {
			o.Explore = &explore.Options{Seed: 5, MaxActions: 60, Output: &out}
		}
		rep, err := Run(o)
		if err != nil {
			t.Fatalf("explores %v: Run = %v\n%s", explores, err, out.String())
		}
		scenarios, sequences := 0, 0
		for _, s := range rep.Scenarios {
			switch {
			case s.Sequence():
				sequences++
			case sequences > 0:
				t.Errorf("explores %v: the scenario %s comes after a sequence", explores, s.Place())
			default:
				scenarios++
			}
		}
		if scenarios == 0 || (sequences > 0) != explores {
			t.Fatalf("explores %v: %d scenarios and %d sequences\n%s", explores, scenarios, sequences, out.String())
		}
		reporttest.Check(t, o.ReportDir)
		if !explores {
			continue
		}
		if !strings.Contains(out.String(), "Exploring in-process with seed 5") || !strings.Contains(rep.Selection, "seed 5") {
			t.Errorf("the run does not say it explores with seed 5 (selection %q):\n%s", rep.Selection, out.String())
		}
		if r := ruleNamed(rep, "API-11"); r == nil || r.Checks == 0 || r.Verdict != report.Passed {
			t.Errorf("the in-process exploration did not check the answers against the OpenAPI document (API-11): %+v", r)
		}
	}
}

// TestTheForeignOriginsOfARunThatExploresAreBothRunners: against a target
// whose events live at another origin, a run that explores after its
// scenarios reports every request both sent there, as the other listener
// counted them, none of them with credentials.
func TestTheForeignOriginsOfARunThatExploresAreBothRunners(t *testing.T) {
	x := origintest.Start(t, startReference(t, target.ServerConfig{}, nil), "/api/events/")
	tgt := remote(x.URL)
	tgt.Timeout = 5 * time.Second
	var out bytes.Buffer
	rep, err := Run(Options{Target: tgt, Tags: "@spec and @writes and @API-6", Output: &out,
		Explore: &explore.Options{Seed: 2, MaxActions: 60, Output: &out}})
	if rep == nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	requests, credentials := x.Seen()
	if len(credentials) > 0 {
		t.Errorf("the other origin was sent %d credentials in %d requests", len(credentials), requests)
	}
	explored := slices.ContainsFunc(rep.Scenarios, (*report.ScenarioResult).Sequence)
	i := slices.IndexFunc(rep.Foreign, func(f origin.Foreign) bool { return f.Origin == x.Other })
	if !explored || i < 0 || rep.Foreign[i].Requests != requests {
		t.Errorf("explored: %v; the report says %+v, want %s with the %d requests it saw\n%s", explored, rep.Foreign, x.Other, requests, out.String())
	}
}

// TestTheExplorationsServerAgesAsADeployedOneDoes: in-process, the
// exploration after the scenarios explores one reference server whose
// clock follows the machine's, as conformance explore does: its budget of
// token requests, spent, refills as time passes. With a clock that stands
// still, as the scenarios' servers have, it never would, and an
// exploration of the default budget would end throttled.
func TestTheExplorationsServerAgesAsADeployedOneDoes(t *testing.T) {
	o, err := FromEnv(func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	inst, err := o.Target.Launcher.Launch(explore.ServerConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer inst.Close()
	c := target.DemoCredentials
	token := func() int {
		form := url.Values{"grant_type": {"password"}, "username": {c.Username}, "password": {c.Password}}
		req, _ := http.NewRequest(http.MethodPost, inst.BaseURL()+"/oauth/token", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.SetBasicAuth(c.ClientID, c.ClientSecret)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	spent := false
	for i := 0; i < 2*throttle.DefaultBurst && !spent; i++ {
		spent = token() == http.StatusTooManyRequests
	}
	if !spent {
		t.Fatalf("%d token requests at once did not spend the server's budget", 2*throttle.DefaultBurst)
	}
	time.Sleep(1200 * time.Millisecond)
	if status := token(); status != http.StatusOK {
		t.Errorf("a token request 1.2 s after the budget was spent: %d, want 200: the server's clock stands still", status)
	}
}
