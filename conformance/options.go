package conformance

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"eventsvc/steps"
)

// Default tag expressions (README, "The conformance suite"): a remote target
// is checked against what the specification states; the in-process reference
// server against everything but real-time waits.
const (
	RemoteTags    = "@spec && ~@local && ~@slow"
	InProcessTags = "~@slow"
	// ControlTags are RemoteTags plus the scenarios of token validity
	// (LIM-1, LIM-2, also their @ref expiry answers), which move the clock:
	// against a reference server whose control API the run can use
	// (CONTROL_URL), they run in seconds.
	ControlTags = "~@slow && ~@local,@LIM-1,@LIM-2 && @spec,@LIM-1,@LIM-2"
)

// DemoCredentials are the reference server's demo credentials, the default
// of every CONFORMANCE_* credential variable.
var DemoCredentials = steps.Credentials{
	ClientID: "myApp", ClientSecret: "pass",
	Username: "user@email.com", Password: "user",
	OtherUsername: "admin@email.com", OtherPass: "admin",
}

// FromEnv builds run options from the environment, as `make conformance`
// passes it: BASE_URL (empty: the in-process reference server), the
// CONFORMANCE_* credentials, CONFORMANCE_TAGS and CONFORMANCE_REPORT_DIR.
// getenv is os.Getenv in production.
func FromEnv(getenv func(string) string) (Options, error) {
	or := func(name, def string) string {
		if v := getenv(name); v != "" {
			return v
		}
		return def
	}
	d := DemoCredentials
	creds := steps.Credentials{
		ClientID:      or("CONFORMANCE_CLIENT_ID", d.ClientID),
		ClientSecret:  or("CONFORMANCE_CLIENT_SECRET", d.ClientSecret),
		Username:      or("CONFORMANCE_USERNAME", d.Username),
		Password:      or("CONFORMANCE_PASSWORD", d.Password),
		OtherUsername: or("CONFORMANCE_OTHER_USERNAME", d.OtherUsername),
		OtherPass:     or("CONFORMANCE_OTHER_PASSWORD", d.OtherPass),
	}
	o := Options{ReportDir: getenv("CONFORMANCE_REPORT_DIR")}
	var eventBody []byte
	if file := getenv("CONFORMANCE_EVENT_FILE"); file != "" {
		b, err := readEventFile(file)
		if err != nil {
			return Options{}, err
		}
		eventBody = b
	}
	base := strings.TrimRight(strings.TrimSpace(getenv("BASE_URL")), "/")
	if base == "" {
		o.Target = steps.Target{Credentials: creds, Launcher: InProcess{Credentials: creds}, RunID: runID(), EventBody: eventBody}
		o.Tags = or("CONFORMANCE_TAGS", InProcessTags)
		return o, nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Options{}, fmt.Errorf("BASE_URL %q is not an http or https address", base)
	}
	o.Target = steps.Target{BaseURL: base, Credentials: creds, RunID: runID(), EventBody: eventBody}
	o.Tags = or("CONFORMANCE_TAGS", RemoteTags)
	if err := controlFromEnv(getenv, &o); err != nil {
		return Options{}, err
	}
	return o, nil
}

// runID names one run: the time it started, to the second, in UTC.
func runID() string { return time.Now().UTC().Format("20060102T150405Z") }

// readEventFile reads CONFORMANCE_EVENT_FILE: one JSON object, the body of
// a new event on the target.
func readEventFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CONFORMANCE_EVENT_FILE: %w", err)
	}
	var obj map[string]any
	if err := json.Unmarshal(b, &obj); err != nil || obj == nil {
		return nil, fmt.Errorf("CONFORMANCE_EVENT_FILE %s: not a JSON object", path)
	}
	return b, nil
}
