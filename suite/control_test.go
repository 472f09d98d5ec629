package suite

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/control"
	"eventsvc/server/event"
	"eventsvc/server/servertest"
)

// startWithControl runs a reference server as `eventsvc serve -control`
// does, out of the suite's reach but for its control API: its own clock,
// which only the control API moves. It returns the two addresses.
func startWithControl(t *testing.T, token string) (base, ctl string) {
	t.Helper()
	file, err := inprocess.Launcher{Credentials: target.DemoCredentials}.ConfigFile(target.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.New(file)
	if err != nil {
		t.Fatal(err)
	}
	m := control.NewMock(clock.System{})
	events := event.NewMemory()
	opts := server.Options{Config: cfg, Events: events}
	m.Steer(&opts)
	srv := server.New(opts)
	c := m.Control(control.Options{Server: srv, Events: events, Accounts: cfg.Accounts, Clients: cfg.Clients, Cost: bcrypt.MinCost, Token: token})
	return servertest.New(t, srv).URL, servertest.New(t, c).URL
}

// TestTokenValidityAgainstAReferenceServerWithAControlAPI: with a control
// URL, the scenarios that move the clock run against a server out of
// process; without one, they cannot.
func TestTokenValidityAgainstAReferenceServerWithAControlAPI(t *testing.T) {
	const token = "control-token-of-the-test"
	base, ctl := startWithControl(t, token)
	run := func(controlURL string) (*report.Report, string, error) {
		var out bytes.Buffer
		rep, err := Run(Options{
			Target:    target.Target{BaseURL: base, ControlURL: controlURL, ControlToken: token, Credentials: target.DemoCredentials, RunID: "control"},
			Tags:      "@clock && @spec,@ref",
			Output:    &out,
			NoSummary: true,
		})
		return rep, out.String(), err
	}
	rep, out, err := run(ctl)
	if err != nil {
		t.Fatalf("with the control API: %v\n%s", err, out)
	}
	verdicts := map[string]int{}
	for _, s := range rep.Scenarios {
		if s.Verdict != report.NotRun {
			verdicts[s.Verdict]++
		}
	}
	if verdicts[report.Passed] != 5 || len(verdicts) != 1 {
		t.Fatalf("the five token validity scenarios did not all run and pass: %v\n%s", verdicts, out)
	}
	if strings.Contains(out, token) {
		t.Fatal("the output shows the control token")
	}
	_, out, err = run("")
	if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "CONTROL_URL") {
		t.Fatalf("without the control API, the run should stop saying the @clock scenarios need CONTROL_URL: %v\n%s", err, out)
	}
}

func TestFromEnvReadsTheControlURL(t *testing.T) {
	env := map[string]string{"BASE_URL": "http://127.0.0.1:8080", "CONTROL_URL": "http://127.0.0.1:9090/", "CONFORMANCE_CONTROL_TOKEN": "tok"}
	lookup := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	o, err := FromEnv(lookup)
	if err != nil {
		t.Fatal(err)
	}
	if o.Target.ControlURL != "http://127.0.0.1:9090" || o.Target.ControlToken != "tok" || o.Tags != selection.ControlTags {
		t.Fatalf("target %+v, tags %q", o.Target, o.Tags)
	}
	env["CONFORMANCE_TAGS"] = "@spec"
	if o, _ := FromEnv(lookup); o.Tags != "@spec" {
		t.Fatalf("CONFORMANCE_TAGS is not kept: %q", o.Tags)
	}
	delete(env, "BASE_URL")
	if _, err := FromEnv(lookup); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "BASE_URL") {
		t.Fatalf("a CONTROL_URL without BASE_URL: %v", err)
	}
	env["BASE_URL"] = "http://127.0.0.1:8080"
	env["CONTROL_URL"] = "127.0.0.1:9090"
	if _, err := FromEnv(lookup); err == nil || !strings.Contains(err.Error(), "CONTROL_URL") {
		t.Fatalf("a CONTROL_URL without a scheme: %v", err)
	}
}
