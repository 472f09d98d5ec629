package suite

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
)

// DefaultReportDir is where the binary writes the reports when
// CONFORMANCE_REPORT_DIR and -report-dir say nothing.
const DefaultReportDir = "reports"

// credentialVars are the variables of the credentials, in the order of
// target.Credentials.
var credentialVars = []string{
	"CONFORMANCE_CLIENT_ID", "CONFORMANCE_CLIENT_SECRET",
	"CONFORMANCE_USERNAME", "CONFORMANCE_PASSWORD",
	"CONFORMANCE_OTHER_USERNAME", "CONFORMANCE_OTHER_PASSWORD",
}

// FromEnv builds run options from the environment, as `make conformance`
// passes it: the variables of Variables, such as BASE_URL (empty: the
// in-process reference server), the CONFORMANCE_* credentials and
// READ_ONLY, and the standard proxy variables. lookup is os.LookupEnv in
// production. A credential variable that is set must not be empty, and the
// two users must be two accounts.
func FromEnv(lookup func(string) (string, bool)) (Options, error) {
	get := func(name string) string { v, _ := lookup(name); return v }
	d := target.DemoCredentials
	values := []*string{&d.ClientID, &d.ClientSecret, &d.Username, &d.Password, &d.OtherUsername, &d.OtherPass}
	demo := true
	for i, name := range credentialVars {
		v, set := lookup(name)
		if !set {
			continue
		}
		if strings.TrimSpace(v) == "" {
			return Options{}, report.Usage("%s is set but empty: give it a value, or unset it for the default (%s)", name, maskDefault(name, *values[i]))
		}
		*values[i], demo = v, false
	}
	if strings.EqualFold(strings.TrimSpace(d.Username), strings.TrimSpace(d.OtherUsername)) {
		return Options{}, report.Usage("CONFORMANCE_USERNAME and CONFORMANCE_OTHER_USERNAME are both %q: the suite needs two accounts, the second one to check that it cannot change the first one's events", d.Username)
	}
	readOnly, err := ParseBool("READ_ONLY", get("READ_ONLY"))
	if err != nil {
		return Options{}, err
	}
	failOnNotRun, err := ParseBool("CONFORMANCE_FAIL_ON_NOT_RUN", get("CONFORMANCE_FAIL_ON_NOT_RUN"))
	if err != nil {
		return Options{}, err
	}
	slow, err := ParseBool("CONFORMANCE_SLOW", get("CONFORMANCE_SLOW"))
	if err != nil {
		return Options{}, err
	}
	o := Options{ReportDir: get("CONFORMANCE_REPORT_DIR"), ReadOnly: readOnly, FailOnNotRun: failOnNotRun, DemoCredentials: demo, Slow: slow}
	if o.Concurrency, err = parseCount("CONFORMANCE_CONCURRENCY", get("CONFORMANCE_CONCURRENCY"), 1, 64); err != nil {
		return Options{}, err
	}
	if o.Retries, err = parseCount("CONFORMANCE_RETRIES", get("CONFORMANCE_RETRIES"), 0, 10); err != nil {
		return Options{}, err
	}
	if file := get("CONFORMANCE_EXPECTED_FAILURES"); file != "" {
		if o.Baseline, err = report.ReadBaseline(file); err != nil {
			return Options{}, err
		}
	}
	timeout, err := ParseDuration("CONFORMANCE_TIMEOUT", get("CONFORMANCE_TIMEOUT"), "")
	if err != nil {
		return Options{}, err
	}
	maxAnswer, err := ParseSize("CONFORMANCE_MAX_ANSWER", get("CONFORMANCE_MAX_ANSWER"))
	if err != nil {
		return Options{}, err
	}
	transport, err := target.Network{CAFile: get("CONFORMANCE_CA_FILE"), Proxy: target.ProxyFromEnv(lookup)}.Transport()
	if err != nil {
		return Options{}, report.Usage("%w", err)
	}
	var eventBody []byte
	if file := get("CONFORMANCE_EVENT_FILE"); file != "" {
		b, err := readEventFile(file)
		if err != nil {
			return Options{}, err
		}
		eventBody = b
	}
	tags, tagsSet := lookup("CONFORMANCE_TAGS")
	tagsSet = tagsSet && strings.TrimSpace(tags) != ""
	base := strings.TrimRight(strings.TrimSpace(get("BASE_URL")), "/")
	if base == "" {
		o.Target = target.Target{Credentials: d, Launcher: inprocess.Launcher{Credentials: d}, RunID: runID(), EventBody: eventBody, Transport: transport, Timeout: timeout, MaxAnswer: maxAnswer}
		if err := controlFromEnv(get, &o); err != nil {
			return Options{}, err
		}
	} else {
		u, err := url.Parse(base)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Options{}, report.Usage("BASE_URL %q is not an http or https address", base)
		}
		if u.RawQuery != "" || u.Fragment != "" {
			return Options{}, report.Usage("BASE_URL %q has a query or fragment: give the address under which /api is served", base)
		}
		o.Target = target.Target{BaseURL: base, Credentials: d, RunID: runID(), EventBody: eventBody, Transport: transport, Timeout: timeout, MaxAnswer: maxAnswer}
		if err := controlFromEnv(get, &o); err != nil {
			return Options{}, err
		}
	}
	o.Tags, o.DefaultTags = selection.DefaultTags(o.Target.Remote(), o.Target.ControlURL != "", slow), true
	if tagsSet {
		o.Tags, o.DefaultTags = tags, false
	}
	return o, nil
}

// maskDefault shows a variable's default, unless it is a secret.
func maskDefault(name, v string) string {
	if Secret(name) {
		return "the demo one"
	}
	return v
}

// Secret reports whether the variable name holds a secret, whose value
// is never shown: a client secret, a password, the control API's token.
func Secret(name string) bool {
	for _, suffix := range []string{"SECRET", "PASSWORD", "TOKEN"} {
		if strings.HasSuffix(name, suffix) {
			return true
		}
	}
	return false
}

// ParseBool reads a yes-or-no variable the one way the suite reads them
// all: "1" or "true" is yes; "", "0" or "false" is no; anything else is
// refused (ErrUsage), rather than guessed.
func ParseBool(name, v string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "true":
		return true, nil
	case "", "0", "false":
		return false, nil
	}
	return false, report.Usage("%s=%q: want 1 or true to switch it on, 0, false or nothing to leave it off", name, v)
}

// ParseDuration reads a duration variable or flag, the one syntax of
// every duration of a run: "30s", "2m", "1h30m", or a number of seconds.
// Empty is zero: the default. zero, when not "", says what 0 means for
// name, which then takes it ("none"); otherwise a duration must be
// positive.
func ParseDuration(name, v, zero string) (time.Duration, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		var secs float64
		if _, serr := fmt.Sscanf(v, "%g", &secs); serr == nil && fmt.Sprint(secs) == v {
			d, err = time.Duration(secs*float64(time.Second)), nil
		}
	}
	switch {
	case err == nil && d > 0, err == nil && d == 0 && zero != "":
		return d, nil
	case zero != "":
		return 0, report.Usage("%s=%q: want a duration such as 90s or 2m, or 0 for %s", name, v, zero)
	}
	return 0, report.Usage("%s=%q: want a positive duration such as 30s or 2m", name, v)
}

// ParseSize reads a size variable or flag: "4MiB", "512KiB", or a number
// of bytes (cutoff.ParseSize). Empty is zero: the default.
func ParseSize(name, v string) (int64, error) {
	if strings.TrimSpace(v) == "" {
		return 0, nil
	}
	n, err := cutoff.ParseSize(v)
	if err != nil {
		return 0, report.Usage("%s=%q: %v", name, v, err)
	}
	return n, nil
}

// parseCount reads a whole number between lo and hi; empty is lo.
func parseCount(name, v string, lo, hi int) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return lo, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, report.Usage("%s=%q: want a whole number from %d to %d", name, v, lo, hi)
	}
	return n, nil
}

// Variables are the environment variables FromEnv reads, besides the
// standard proxy variables.
var Variables = []string{
	"BASE_URL", "READ_ONLY", "CONTROL_URL", "CONFORMANCE_CONTROL_TOKEN",
	"CONFORMANCE_CLIENT_ID", "CONFORMANCE_CLIENT_SECRET", "CONFORMANCE_USERNAME", "CONFORMANCE_PASSWORD",
	"CONFORMANCE_OTHER_USERNAME", "CONFORMANCE_OTHER_PASSWORD", "CONFORMANCE_EVENT_FILE", "CONFORMANCE_TAGS",
	"CONFORMANCE_REPORT_DIR", "CONFORMANCE_CONCURRENCY", "CONFORMANCE_RETRIES", "CONFORMANCE_EXPECTED_FAILURES",
	"CONFORMANCE_TIMEOUT", "CONFORMANCE_MAX_ANSWER", "CONFORMANCE_CA_FILE", "CONFORMANCE_FAIL_ON_NOT_RUN", "CONFORMANCE_SLOW",
}

// runID names one run: the time it started, to the second, in UTC.
func runID() string { return time.Now().UTC().Format("20060102T150405Z") }

// readEventFile reads CONFORMANCE_EVENT_FILE: one JSON object, the body of
// a new event on the target. A syntax error is told as the parser tells it,
// with its line and column.
func readEventFile(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, report.Usage("CONFORMANCE_EVENT_FILE: %w", err)
	}
	var obj any
	if err := json.Unmarshal(b, &obj); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			line, col := position(b, syntax.Offset)
			return nil, report.Usage("CONFORMANCE_EVENT_FILE %s: line %d, column %d: %v", path, line, col, err)
		}
		return nil, report.Usage("CONFORMANCE_EVENT_FILE %s: %v", path, err)
	}
	if _, ok := obj.(map[string]any); !ok {
		return nil, report.Usage("CONFORMANCE_EVENT_FILE %s: the JSON is %s, not an object: want the body of a new event, {\"name\": …}", path, jsonKind(obj))
	}
	return b, nil
}

// position is the line and column of a byte offset.
func position(b []byte, offset int64) (line, col int) {
	line, col = 1, 1
	for i := int64(0); i < offset && i < int64(len(b)); i++ {
		if b[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return line, col
}

func jsonKind(v any) string {
	switch v.(type) {
	case []any:
		return "an array"
	case string:
		return "a string"
	case float64:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return "a value"
}
