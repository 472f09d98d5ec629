package main

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/server"
	"eventsvc/server/servertest"
)

// sequencePlace is the place of an exploration's sequence in the reports.
var sequencePlace = regexp.MustCompile(`^explore:[0-9]+$`)

// places splits the places of doc's scenarios into those of scenarios and
// those of sequences, and reports whether every sequence comes after
// every scenario.
func places(doc report.Document) (scenarios, sequences []string, after bool) {
	after = true
	for _, s := range doc.Scenarios {
		if strings.HasPrefix(s.Place, audit.File+":") {
			continue // the audit's findings come last, whichever runner's answer broke them
		}
		if sequencePlace.MatchString(s.Place) {
			sequences = append(sequences, s.Place)
			continue
		}
		scenarios = append(scenarios, s.Place)
		after = after && len(sequences) == 0
	}
	return scenarios, sequences, after
}

// TestTheDefaultRunExploresAfterTheScenarios: against a target with a
// fault that only generated data shows, the binary run with nothing but
// a target, a report folder and a seed fails (1): its scenarios pass, and
// the exploration that follows them finds the fault. The seed is said
// before the first scenario; the output has one summary and one closing
// line, which counts both; every report holds the scenarios, then the
// sequences; a rule a sequence failed is failed though its scenarios
// passed, and one both checked and neither failed is passed; the
// finding's replay file replays it. With -explore 0 the same run passes
// (0), explores nothing, and leaves no replay file of the run before. The
// seed and a budget of 120 actions make it short and the same every time.
func TestTheDefaultRunExploresAfterTheScenarios(t *testing.T) {
	base := escapingTarget(t)
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", base, "-report-dir", dir}, lookupOf(map[string]string{"CONFORMANCE_SEED": "7", "CONFORMANCE_MAX_ACTIONS": "120"}), &out, &errs)
	text := out.String()
	if code != exitFailed || !strings.Contains(errs.String(), "API-6") {
		t.Fatalf("the default run against a target that escapes its texts: exit %d, stderr %q; want 1, naming API-6\n%s", code, errs.String(), tail(text))
	}
	firstScenario := regexp.MustCompile(`(?m)^(PASSED|FAILED|NOT RUN) +[a-z-]+\.feature:`).FindStringIndex(text)
	if seed := strings.Index(text, "seed 7"); seed < 0 || firstScenario == nil || seed > firstScenario[0] {
		t.Errorf("the run does not say its seed before the first scenario:\n%s", head(text))
	}
	lastScenario := regexp.MustCompile(`(?m)^[A-Z ]+ +[a-z-]+\.feature:[0-9]+  `).FindAllStringIndex(text, -1)
	firstSequence := regexp.MustCompile(`(?m)^[A-Z ]+ +explore:[0-9]+  `).FindStringIndex(text)
	if firstSequence == nil || len(lastScenario) == 0 || firstSequence[0] < lastScenario[len(lastScenario)-1][0] {
		t.Errorf("the sequences are not told after the scenarios:\n%s", tail(text))
	}
	for what, re := range map[string]string{"summary": `(?m)^Suite `, "verdict per rule": `(?m)^Rules: `, "closing line": `(?m)^(PASSED|FAILED): `} {
		if n := len(regexp.MustCompile(re).FindAllString(text, -1)); n != 1 {
			t.Errorf("the output has %d %ss, want one:\n%s", n, what, tail(text))
		}
	}
	if !regexp.MustCompile(`(?m)^FAILED: .*; [0-9]+ scenarios and [0-9]+ sequences in `).MatchString(text) {
		t.Errorf("the closing line does not count the scenarios and the sequences:\n%s", tail(text))
	}

	doc := reporttest.Read(t, dir)
	scenarios, sequences, after := places(doc)
	if len(scenarios) < 30 || len(sequences) == 0 || !after {
		t.Fatalf("conformance.json holds %d scenarios and %d sequences, the sequences after the scenarios: %v; want both, in that order", len(scenarios), len(sequences), after)
	}
	if doc.Outcome != report.OutcomeFailed || !strings.Contains(doc.Selection, "seed 7") {
		t.Errorf("conformance.json: outcome %q, selection %q; want failed, with the seed", doc.Outcome, doc.Selection)
	}
	verdicts := map[string]string{}
	for _, s := range doc.Scenarios {
		verdicts[s.Place] = s.Verdict
	}
	byBoth := func(r report.DocumentRule) (scenarioVerdicts, sequenceVerdicts []string) {
		for _, p := range r.Scenarios {
			switch {
			case strings.HasPrefix(p, audit.File+":"):
				// the audit's, of the answers of both
			case sequencePlace.MatchString(p):
				sequenceVerdicts = append(sequenceVerdicts, verdicts[p])
			default:
				scenarioVerdicts = append(scenarioVerdicts, verdicts[p])
			}
		}
		return scenarioVerdicts, sequenceVerdicts
	}
	failedBySequence, passedByBoth := false, false
	for _, r := range doc.Rules {
		sc, sq := byBoth(r)
		if len(sc) == 0 || len(sq) == 0 || slices.Contains(sc, report.Failed) {
			continue
		}
		switch {
		case r.ID == "API-6" && r.Verdict == report.Failed && slices.Contains(sq, report.Failed) && slices.Contains(sc, report.Passed):
			failedBySequence = true
		case r.Verdict == report.Passed && r.Checks > 0 && !slices.Contains(sq, report.Failed):
			passedByBoth = true
		}
	}
	if !failedBySequence || !passedByBoth {
		t.Errorf("conformance.json: API-6 failed by a sequence, its scenarios passing: %v; a rule passed by both with the exploration's checks: %v", failedBySequence, passedByBoth)
	}

	for what, names := range map[string][]string{"junit.xml": junitSuites(t, dir), "cucumber.json": cucumberFeatures(t, dir)} {
		if n := len(names); n > 0 && names[n-1] == "Audit" {
			names = names[:n-1] // the audit's findings, last
		}
		if i := slices.Index(names, "Exploration"); i < 1 || i != len(names)-1 {
			t.Errorf("%s holds the features %q; want the scenarios' then the exploration's (then the audit's)", what, names)
		}
	}
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(page), sequences[0]) || !strings.Contains(string(page), scenarios[0]) {
		t.Errorf("conformance.html does not hold both %s and %s", scenarios[0], sequences[0])
	}
	scripts, _ := filepath.Glob(filepath.Join(dir, report.ReproDir, "API-*-explore-*.sh"))
	replays, _ := filepath.Glob(filepath.Join(dir, "explore", "API-*.json"))
	if len(scripts) == 0 || len(replays) == 0 {
		t.Fatalf("no reproduction script (%q) or replay file (%q) of the finding", scripts, replays)
	}
	var again, againErrs bytes.Buffer
	// Against a server of its own: the run's wrong logins count towards
	// the lockout of the one it checked.
	if code := run([]string{"explore", "-base-url", escapingTarget(t), "-report-dir", t.TempDir(), "-replay", replays[0]}, lookupOf(nil), &again, &againErrs); code != exitFailed {
		t.Errorf("conformance explore -replay %s: exit %d, want 1\n%s%s", replays[0], code, tail(again.String()), againErrs.String())
	}

	out.Reset()
	errs.Reset()
	code = run([]string{"-base-url", base, "-report-dir", dir, "-explore", "0"}, lookupOf(map[string]string{"CONFORMANCE_SEED": "7", "CONFORMANCE_MAX_ACTIONS": "120"}), &out, &errs)
	if code != exitPassed || strings.Contains(out.String(), "explore:") {
		t.Fatalf("-explore 0: exit %d, want 0 without a sequence\n%s%s", code, tail(out.String()), errs.String())
	}
	if _, sequences, _ := places(reporttest.Read(t, dir)); len(sequences) > 0 {
		t.Errorf("-explore 0: conformance.json holds the sequences %q", sequences)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, "explore", "*")); len(left) > 0 {
		t.Errorf("-explore 0 leaves the replay files of the run before: %q", left)
	}
}

// junitSuites returns the names of the test suites of dir's junit.xml.
func junitSuites(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JUnitReport))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Suites []struct {
			Name string `xml:"name,attr"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range doc.Suites {
		names = append(names, s.Name)
	}
	return names
}

// cucumberFeatures returns the names of the features of dir's
// cucumber.json.
func cucumberFeatures(t *testing.T, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.CucumberReport))
	if err != nil {
		t.Fatal(err)
	}
	var doc []struct {
		Name string `json:"name"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range doc {
		names = append(names, f.Name)
	}
	return names
}

// lookupOf is the environment vars alone, without the CONFORMANCE_EXPLORE
// that env sets for the tests of other things.
func lookupOf(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

// head is the start of a run's output.
func head(out string) string {
	if len(out) > 3000 {
		return out[:3000] + "…"
	}
	return out
}

// TestARunThatDidNotStartOrWasStoppedDoesNotExplore: the default run
// explores only after scenarios that ran to their end: not after a
// preflight that failed (2), nor after the target stopped answering (4)
// or throttled the run (3) midway, though it answers again by the time
// the scenarios end; none of them says it explores or reports a
// sequence.
func TestARunThatDidNotStartOrWasStoppedDoesNotExplore(t *testing.T) {
	rp, ref := proxyToReference(t)
	// stopping is the reference server, but for its 61st answer: a 429
	// that asks for two minutes, or a gateway's 502 in its place.
	stopping := func(throttle bool) string {
		var n atomic.Int64
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			switch {
			case n.Add(1) != 61:
				rp.ServeHTTP(w, r)
			case throttle:
				w.Header().Set("Retry-After", "120")
				w.WriteHeader(http.StatusTooManyRequests)
			default:
				http.Error(w, "upstream connect error", http.StatusBadGateway)
			}
		}))
		t.Cleanup(srv.Close)
		return srv.URL
	}
	for _, c := range []struct {
		name string
		base string
		vars map[string]string
		want int
	}{
		{"a wrong client secret", ref, map[string]string{"CONFORMANCE_CLIENT_SECRET": "not-the-secret"}, exitUsage},
		{"a target that stops answering", stopping(false), nil, exitUnreachable},
		{"a target that throttles the run", stopping(true), nil, exitThrottled},
	} {
		dir := t.TempDir()
		var out, errs bytes.Buffer
		code := run([]string{"-base-url", c.base, "-report-dir", dir, "-read-only"}, lookupOf(c.vars), &out, &errs)
		if code != c.want {
			t.Errorf("%s: exit %d, want %d\n%s%s", c.name, code, c.want, tail(out.String()), errs.String())
			continue
		}
		if strings.Contains(out.String(), "Exploring ") || strings.Contains(out.String(), "explore:") {
			t.Errorf("%s: the run explored:\n%s", c.name, tail(out.String()))
		}
		if _, sequences, _ := places(reporttest.Read(t, dir)); len(sequences) > 0 {
			t.Errorf("%s: conformance.json holds the sequences %q", c.name, sequences)
		}
	}
}

// TestWhichRunsExplore: a run of other tags than the default explores
// after its scenarios, as the default run does; a run of the scenarios
// -run names does not, unless -explore asks it to, and says so at its
// start; -list runs nothing, but refuses an -explore that is not a time.
func TestWhichRunsExplore(t *testing.T) {
	ref := servertest.New(t, server.New(server.Options{Config: servertest.DemoConfig(t)}))
	budget := map[string]string{"CONFORMANCE_SEED": "3", "CONFORMANCE_MAX_ACTIONS": "15"}
	for _, c := range []struct {
		args     []string
		explores bool
		says     string
	}{
		{[]string{"-tags", "@TOK-2"}, true, "seed 3"},
		{[]string{"-run", "tokens.feature:13"}, false, "-run runs the scenarios it names alone"},
		{[]string{"-run", "tokens.feature:13", "-explore", "20s"}, true, "seed 3"},
	} {
		dir := t.TempDir()
		var out, errs bytes.Buffer
		code := run(append([]string{"-base-url", ref.URL, "-report-dir", dir}, c.args...), lookupOf(budget), &out, &errs)
		if code != exitPassed {
			t.Errorf("%v: exit %d\n%s%s", c.args, code, tail(out.String()), errs.String())
			continue
		}
		start, _, _ := strings.Cut(out.String(), "\n\n")
		if !strings.Contains(start, c.says) {
			t.Errorf("%v: the start of the run does not say %q:\n%s", c.args, c.says, start)
		}
		if _, sequences, _ := places(reporttest.Read(t, dir)); (len(sequences) > 0) != c.explores {
			t.Errorf("%v: the run explored %d sequences; want some: %v", c.args, len(sequences), c.explores)
		}
	}
	var out, errs bytes.Buffer
	if code := run([]string{"-list", "-base-url", ref.URL}, lookupOf(budget), &out, &errs); code != exitPassed || strings.Contains(out.String(), "explore:") {
		t.Errorf("-list: exit %d\n%s%s", code, out.String(), errs.String())
	}
	for _, bad := range []string{"soon", "-1m"} {
		errs.Reset()
		if code := run([]string{"-list", "-explore", bad}, lookupOf(nil), &out, &errs); code != exitUsage || !strings.Contains(errs.String(), "CONFORMANCE_EXPLORE") {
			t.Errorf("-explore %s: exit %d, stderr %q; want 2, naming CONFORMANCE_EXPLORE", bad, code, errs.String())
		}
	}
}

// TestAnExplorationThatCannotStartFailsTheRun: a target that refuses the
// exploration's first event, after scenarios that passed, fails the run
// (1), whose green would otherwise cover an exploration that did not
// happen; the error output, the closing line and conformance.json say
// why.
func TestAnExplorationThatCannotStartFailsTheRun(t *testing.T) {
	rp, _ := proxyToReference(t)
	srv := refusing(t, rp, func(r *http.Request, body []byte) bool {
		return r.Method == http.MethodPost && bytes.Contains(body, []byte(" explore]"))
	}, http.StatusBadRequest, `{"error": "no"}`)
	dir := t.TempDir()
	var out, errs bytes.Buffer
	code := run([]string{"-base-url", srv.URL, "-report-dir", dir, "-tags", "@TOK-2"}, lookupOf(nil), &out, &errs)
	const why = "the exploration after the scenarios could not start: the target refused the run's event body"
	if code != exitFailed || !strings.Contains(errs.String(), why) {
		t.Fatalf("exit %d, stderr %q; want 1, saying %q\n%s", code, errs.String(), why, tail(out.String()))
	}
	if !regexp.MustCompile(`(?m)^FAILED: .*\(` + regexp.QuoteMeta(why)).MatchString(out.String()) {
		t.Errorf("the closing line does not say why the run failed:\n%s", tail(out.String()))
	}
	if doc := reporttest.Read(t, dir); doc.Outcome != report.OutcomeFailed || !strings.Contains(doc.Error, why) {
		t.Errorf("conformance.json: outcome %q, error %q", doc.Outcome, doc.Error)
	}
}
