package explore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"eventsvc/conformance/contract"
	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/mutate"
	"eventsvc/conformance/report"
	"eventsvc/conformance/report/reporttest"
	"eventsvc/conformance/target"
)

// TestAVariantOfARequestIsJudgedByTheRegistry: a variant action sends a
// request the sequence would send varied by an operator of the mutator's
// catalogue, and the registry's invariants judge the answer: against a
// target that takes a password in any case, the near-miss
// breaks TOK-3; against one that takes a creation without a token at
// /api/EVENTS, the variant breaks AUTH-3. Against the reference server,
// neither is a finding.
func TestAVariantOfARequestIsJudgedByTheRegistry(t *testing.T) {
	c := target.DemoCredentials
	folded := flawed.Flaw{Name: "the password is compared without regard to case", Request: func(_ *flawed.Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		form, err := url.ParseQuery(string(body))
		if r.URL.Path != "/oauth/token" || err != nil || form.Get("grant_type") != "password" {
			return body, false
		}
		if strings.EqualFold(form.Get("password"), c.Password) {
			form.Set("password", c.Password)
		}
		return []byte(form.Encode()), false
	}}
	caseFolded := flawed.Flaw{Name: "a creation at /api/EVENTS needs no token", Request: func(_ *flawed.Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.Method != http.MethodPost || r.URL.Path == "/api/events" || !strings.EqualFold(r.URL.Path, "/api/events") {
			return body, false
		}
		w.Header().Set("Location", "/api/events/999999")
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, "")
		return nil, true
	}}
	var gets atomic.Int32 // the token requests by GET it took
	byGet := flawed.Flaw{Name: "the token endpoint takes GET", Request: func(_ *flawed.Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.URL.Path != "/oauth/token" || r.Method != http.MethodGet {
			return body, false
		}
		gets.Add(1)
		r.Method, body, r.URL.RawQuery = http.MethodPost, []byte(r.URL.RawQuery), ""
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return body, false
	}}
	grantFolded := flawed.Flaw{Name: "the grant type is read in any case", Request: func(_ *flawed.Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		form, err := url.ParseQuery(string(body))
		if r.URL.Path != "/oauth/token" || err != nil || !strings.EqualFold(form.Get("grant_type"), "password") {
			return body, false
		}
		form.Set("grant_type", "password")
		return []byte(form.Encode()), false
	}}
	ct, err := contract.Default()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		flaw   flawed.Flaw
		action Action
		rule   string
		ref    bool
	}{
		{byGet, Action{Kind: KindVariant, Op: "the grant by another method", As: AsUser, N: 0}, "TOK-2", true},
		{grantFolded, Action{Kind: KindVariant, Op: "the grant type in another case", As: AsUser, N: 0}, "TOK-9", true},
		{folded, Action{Kind: KindVariant, Op: "a near-miss of a credential", As: AsUser, N: 10}, "TOK-3", false}, // the password, its case swapped
		{caseFolded, Action{Kind: KindVariant, Op: "a path segment in upper case", As: AsAnonymous, N: 1}, "AUTH-3", false},
	} {
		replay := &Replay{Seed: 1, Actions: []Action{tt.action}}
		dir := t.TempDir()
		var out bytes.Buffer
		tgt := remote(flawed.Start(t, tt.flaw))
		tgt.Contract = ct
		rep, err := Run(context.Background(), Options{Target: tgt, Ref: tt.ref, Replay: replay, Output: &out, ReportDir: dir})
		if !errors.Is(err, ErrFailed) || len(rep.Scenarios) == 0 || rep.Scenarios[0].Failure == nil || rep.Scenarios[0].Failure.Rules[0] != tt.rule {
			t.Fatalf("%s: Run = %v, want a finding of %s\n%s", tt.flaw.Name, err, tt.rule, out.String())
		}
		if tt.ref {
			// Without -ref, against a deployment, it is not sent.
			out.Reset()
			gets.Store(0)
			tgt := remote(flawed.Start(t, tt.flaw))
			if _, err := Run(context.Background(), Options{Target: tgt, Replay: replay, Output: &out}); err != nil || gets.Load() != 0 {
				t.Errorf("%s: without -ref: Run = %v, %d token requests by GET\n%s", tt.flaw.Name, err, gets.Load(), out.String())
			}
		}
		out.Reset()
		if _, err := Run(context.Background(), Options{Target: inProcess(t), Ref: tt.ref, Replay: replay, Output: &out}); err != nil {
			t.Errorf("%s: the variant against the reference server: Run = %v\n%s", tt.flaw.Name, err, out.String())
		}
		if tt.rule != "TOK-3" {
			continue
		}
		// The near-miss is written as a change of its variable, and
		// shown nowhere as it is.
		script, err := os.ReadFile(filepath.Join(dir, rep.Scenarios[0].Failure.ScriptFile))
		if err != nil {
			t.Fatal(err)
		}
		if step := rep.Scenarios[0].Failure.Step; !strings.Contains(step, "${CONFORMANCE_PASSWORD} with the case of its letters swapped") {
			t.Errorf("the failing step does not say what the variant changed: %q", step)
		}
		if !strings.Contains(string(script), `$(printf %s "${CONFORMANCE_PASSWORD}" | tr a-zA-Z A-Za-z)`) {
			t.Errorf("the script does not write the near-miss as a change of its variable:\n%s", script)
		}
		var all strings.Builder
		all.WriteString(out.String())
		filepath.Walk(dir, func(path string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && info.Name() != report.RulesPage { // the demo's documentation
				b, _ := os.ReadFile(path)
				all.Write(b)
			}
			return nil
		})
		for _, leak := range []string{"password=" + c.Password, "password=" + url.QueryEscape(strings.ToUpper(c.Password)), `"password":"` + c.Password} {
			if strings.Contains(all.String(), leak) {
				t.Errorf("a report or the output holds %q", leak)
			}
		}
	}
}

// TestTheReportSaysWhatWasVaried: an exploration's report names every
// operator of the mutator's catalogue once, as sent (how many of its
// variants) or not and why; a read-only one sends no operator that
// writes, and says so of each; the console counts them, and its closing
// line says that some were not sent.
func TestTheReportSaysWhatWasVaried(t *testing.T) {
	var c counter
	base := flawed.StartProxy(t, flawed.Flaw{Name: "none"}, c.seen)
	for _, readOnly := range []bool{true, false} {
		var out bytes.Buffer
		dir := t.TempDir()
		rep, err := Run(context.Background(), Options{Target: remote(base), Seed: 4, MaxActions: 300, ReadOnly: readOnly, Output: &out, ReportDir: dir})
		if err != nil {
			t.Fatalf("read-only %v: Run = %v\n%s", readOnly, err, out.String())
		}
		if len(rep.Varied) != len(mutate.Catalogue()) {
			t.Fatalf("read-only %v: the report names %d operators, the catalogue has %d", readOnly, len(rep.Varied), len(mutate.Catalogue()))
		}
		sent := map[string]int{}
		for _, v := range rep.Varied {
			op, ok := mutate.Find(v.Operator)
			switch {
			case !ok:
				t.Errorf("read-only %v: the report names %q, which the catalogue has not", readOnly, v.Operator)
			case v.Sent == 0 && v.Reason == "":
				t.Errorf("read-only %v: %q was not sent, and the report says not why", readOnly, v.Operator)
			case readOnly && (op.On == mutate.OnWrite || op.On == mutate.OnUpdate) && (v.Sent > 0 || v.Reason != "read-only"):
				t.Errorf("read-only: %q, which writes, sent %d (%s)", v.Operator, v.Sent, v.Reason)
			}
			sent[op.On] += v.Sent
		}
		if sent[mutate.OnGrant]+sent[mutate.OnList] == 0 || !readOnly && sent[mutate.OnWrite] == 0 {
			t.Errorf("read-only %v: variants sent by kind of request: %v", readOnly, sent)
		}
		n, _, _ := report.Unsent(rep.Varied)
		if !strings.Contains(out.String(), fmt.Sprintf("Varied: %d of %d operators of the catalogue sent", len(rep.Varied)-n, len(rep.Varied))) ||
			n > 0 && !strings.Contains(out.String(), fmt.Sprintf("%d of %d operators not sent", n, len(rep.Varied))) {
			t.Errorf("read-only %v: the console does not say what was varied:\n%s", readOnly, out.String())
		}
		// The budget of failed logins sends the head of the credentials'
		// near-misses; the report names each kind it left unsent, and why.
		i := slices.IndexFunc(rep.Varied, func(v report.Varied) bool { return v.Operator == mutate.CredentialNearMissOp })
		if nm := rep.Varied[i]; nm.Sent != mutate.CredentialNearMissHead || nm.Variants != mutate.CredentialNearMisses() || len(nm.NotSent) != nm.Variants-nm.Sent ||
			nm.NotSentReason != "the failed-login budget" || !slices.Contains(nm.NotSent, "the username with a character appended") ||
			!strings.Contains(out.String(), fmt.Sprintf("%q: %d of its %d variants not sent (the failed-login budget)", nm.Operator, len(nm.NotSent), mutate.CredentialNearMisses())) ||
			!strings.Contains(out.String(), fmt.Sprintf("%d of %d variants of %q not sent", len(nm.NotSent), mutate.CredentialNearMisses(), nm.Operator)) {
			t.Errorf("read-only %v: the near-misses of the credentials: %+v\n%s", readOnly, nm, out.String())
		}
		reporttest.Check(t, dir)
		if doc := reporttest.Read(t, dir); !slices.EqualFunc(doc.Varied, rep.Varied, func(a, b report.Varied) bool { return reflect.DeepEqual(a, b) }) {
			t.Errorf("read-only %v: conformance.json says %d operators varied, the run %d", readOnly, len(doc.Varied), len(rep.Varied))
		}
		if page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport)); err != nil || !strings.Contains(string(page), "What was varied") {
			t.Errorf("read-only %v: conformance.html does not say what was varied (%v)", readOnly, err)
		}
	}
}
