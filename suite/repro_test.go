package suite

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// TestAReproductionShowsTheFaultAgain: the script a failure leaves under
// the report folder, run against the faulty target, shows its faulty
// answer again; against the reference server it shows a correct one. It
// holds no secret, and its output no token.
func TestAReproductionShowsTheFaultAgain(t *testing.T) {
	needCurl(t)
	ref := startReference(t, target.ServerConfig{}, nil)
	for _, tt := range []struct {
		name, tags string
		flaws      othersvc.Flaws
		rule       string
		// shows is what the last answer shows: present on the faulty
		// target, and not on the reference server, or the other way.
		shows  string
		faulty bool
	}{
		{"token_type mac", "@TOK-5", othersvc.Flaws{TokenTypeMAC: true}, "TOK-5", `"token_type":"mac"`, true},
		{"refreshed tokens dead: the list offers no creation", "@TOK-4 and @TOK-8 and not @TOK-13", othersvc.Flaws{RefreshedTokensDead: true}, "TOK-8", `"create-new-event"`, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := othersvc.Start(t, othersvc.Config{Flaws: tt.flaws})
			dir := t.TempDir()
			var out bytes.Buffer
			rep, err := Run(Options{
				Target:    target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "repro", EventBody: []byte(othersvc.EventBody)},
				Tags:      selection.RemoteTags + " and " + tt.tags,
				ReportDir: dir, Output: &out,
			})
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("Run = %v\n%s", err, out.String())
			}
			var script string
			for _, s := range rep.Scenarios {
				if s.Verdict == report.Failed && s.Failure.ScriptFile != "" && strings.HasPrefix(filepath.Base(s.Failure.ScriptFile), tt.rule+"-") {
					script = filepath.Join(dir, s.Failure.ScriptFile)
					break
				}
			}
			if script == "" {
				t.Fatalf("no reproduction of a %s failure:\n%s", tt.rule, out.String())
			}
			if !strings.Contains(out.String(), "Reproduce: sh "+script) {
				t.Errorf("the console does not point at %s:\n%s", script, out.String())
			}
			html, _ := os.ReadFile(filepath.Join(dir, report.HTMLReport))
			if !strings.Contains(string(html), "Reproduce with curl") || !strings.Contains(string(html), "formenc()") {
				t.Errorf("conformance.html does not show the reproduction")
			}
			text, _ := os.ReadFile(script)
			for _, secret := range []string{othersvc.Creds.ClientSecret, othersvc.Creds.Password, othersvc.Creds.OtherPass} {
				if strings.Contains(string(text), secret) {
					t.Fatalf("the script holds a secret:\n%s", text)
				}
			}
			got := replay(t, script, srv.URL, othersvc.Creds)
			if last := got[strings.LastIndex(got, "== "):]; strings.Contains(last, tt.shows) != tt.faulty {
				t.Errorf("against the faulty target, the last answer shows %q: %v, want %v:\n%s", tt.shows, !tt.faulty, tt.faulty, got)
			}
			good := replay(t, script, ref, target.DemoCredentials)
			if last := good[strings.LastIndex(good, "== "):]; strings.Contains(last, tt.shows) == tt.faulty {
				t.Errorf("against the reference server, the last answer shows %q: %v, want %v:\n%s", tt.shows, tt.faulty, !tt.faulty, good)
			}
			for _, o := range []string{got, good} {
				if strings.Contains(o, `"access_token":"`) && !strings.Contains(o, `"access_token":"***"`) {
					t.Errorf("the script's output shows a token:\n%s", o)
				}
			}
		})
	}
}
