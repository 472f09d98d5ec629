package conformance

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/config"
	"eventsvc/server/control"
	"eventsvc/server/event"
	"eventsvc/server/fault"
	"eventsvc/server/journal"
	"eventsvc/server/servertest"
	"eventsvc/steps"
)

// startWithControl runs a reference server as `eventsvc serve -control`
// does, out of the suite's reach but for its control API: its own clock,
// which only the control API moves. It returns the two addresses.
func startWithControl(t *testing.T, token string) (base, ctl string) {
	t.Helper()
	file, err := InProcess{Credentials: DemoCredentials}.configFile(steps.ServerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := config.New(file)
	if err != nil {
		t.Fatal(err)
	}
	clk := clock.NewOffset(clock.System{})
	events := event.NewMemory()
	faults, j := fault.NewSet(rand.Float64), journal.New(100, clk)
	srv := server.New(server.Options{Config: cfg, Clock: clk, Events: events, Faults: faults, Journal: j})
	c := control.New(control.Options{Server: srv, Events: events, Accounts: cfg.Accounts, Clock: clk, Faults: faults, Journal: j, Token: token})
	return servertest.New(t, srv).URL, servertest.New(t, c).URL
}

// TestTokenValidityAgainstAReferenceServerWithAControlAPI: with a control
// URL, the scenarios that move the clock run against a server out of
// process; without one, they cannot.
func TestTokenValidityAgainstAReferenceServerWithAControlAPI(t *testing.T) {
	const token = "control-token-of-the-test"
	base, ctl := startWithControl(t, token)
	run := func(controlURL string) (string, error) {
		var out bytes.Buffer
		err := Run(Options{
			Target:    steps.Target{BaseURL: base, ControlURL: controlURL, ControlToken: token, Credentials: DemoCredentials, RunID: "control"},
			Tags:      "@LIM-1,@LIM-2 && ~@slow",
			Output:    &out,
			NoSummary: true,
		})
		return out.String(), err
	}
	out, err := run(ctl)
	if err != nil {
		t.Fatalf("with the control API: %v\n%s", err, out)
	}
	if !strings.Contains(out, "5 scenarios (5 passed)") {
		t.Fatalf("the token validity scenarios did not all run:\n%s", out)
	}
	if strings.Contains(out, token) {
		t.Fatal("the output shows the control token")
	}
	out, err = run("")
	if !errors.Is(err, ErrFailed) || !strings.Contains(out, "control API") {
		t.Fatalf("without the control API: %v\n%s", err, out)
	}
}

func TestFromEnvReadsTheControlURL(t *testing.T) {
	env := map[string]string{"BASE_URL": "http://127.0.0.1:8080", "CONTROL_URL": "http://127.0.0.1:9090/", "CONFORMANCE_CONTROL_TOKEN": "tok"}
	o, err := FromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if o.Target.ControlURL != "http://127.0.0.1:9090" || o.Target.ControlToken != "tok" || o.Tags != ControlTags {
		t.Fatalf("target %+v, tags %q", o.Target, o.Tags)
	}
	env["CONFORMANCE_TAGS"] = "@spec"
	if o, _ := FromEnv(func(k string) string { return env[k] }); o.Tags != "@spec" {
		t.Fatalf("CONFORMANCE_TAGS is not kept: %q", o.Tags)
	}
	env["CONTROL_URL"] = "127.0.0.1:9090"
	if _, err := FromEnv(func(k string) string { return env[k] }); err == nil || !strings.Contains(err.Error(), "CONTROL_URL") {
		t.Fatalf("a CONTROL_URL without a scheme: %v", err)
	}
}
