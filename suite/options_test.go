package suite

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/selection"
)

func TestFromEnvRefusesWhatWouldSilentlyMisleadARun(t *testing.T) {
	dir := t.TempDir()
	truncated := filepath.Join(dir, "event.json")
	if err := os.WriteFile(truncated, []byte("{\n  \"name\": \"Meetup\",\n  \"venue\": "), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		vars map[string]string
		want string
	}{
		{"an empty client id", map[string]string{"CONFORMANCE_CLIENT_ID": ""}, "CONFORMANCE_CLIENT_ID is set but empty"},
		{"an empty password", map[string]string{"CONFORMANCE_PASSWORD": " "}, "CONFORMANCE_PASSWORD is set but empty: give it a value, or unset it for the default (the demo one)"},
		{"one account as both users", map[string]string{"CONFORMANCE_USERNAME": "qa@example.com", "CONFORMANCE_OTHER_USERNAME": "QA@example.com"}, "the suite needs two accounts"},
		{"truncated JSON", map[string]string{"CONFORMANCE_EVENT_FILE": truncated}, "line 3, column 12: unexpected end of JSON input"},
		{"READ_ONLY=yes", map[string]string{"READ_ONLY": "yes"}, `READ_ONLY="yes": want 1 or true`},
		{"a BASE_URL with a query", map[string]string{"BASE_URL": "https://staging.example/?x=1"}, "has a query or fragment"},
		{"a size without its unit's name", map[string]string{"CONFORMANCE_MAX_ANSWER": "4M"}, `CONFORMANCE_MAX_ANSWER="4M": want a number of bytes, or a number with KiB, MiB or GiB`},
		{"no answer at all", map[string]string{"CONFORMANCE_MAX_ANSWER": "0"}, `CONFORMANCE_MAX_ANSWER="0": want a size from 1 B to 1 GiB`},
	}
	for _, tt := range tests {
		_, err := FromEnv(lookup(tt.vars))
		if !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: FromEnv = %v, want %q", tt.name, err, tt.want)
		}
	}
}

func TestReadOnlyHasOneMeaning(t *testing.T) {
	for v, want := range map[string]bool{"1": true, "true": true, "TRUE": true, "0": false, "false": false, "": false} {
		o, err := FromEnv(lookup(map[string]string{"READ_ONLY": v}))
		if err != nil || o.ReadOnly != want {
			t.Errorf("READ_ONLY=%q: read-only %v (%v), want %v", v, o.ReadOnly, err, want)
		}
	}
}

func TestFromEnvSaysWhenTheDemoCredentialsAreUsed(t *testing.T) {
	o, err := FromEnv(lookup(map[string]string{"BASE_URL": "https://staging.example"}))
	if err != nil || !o.DemoCredentials || !o.DefaultTags || o.Tags != selection.RemoteTags {
		t.Fatalf("no variables: demo %v, default tags %v %q (%v)", o.DemoCredentials, o.DefaultTags, o.Tags, err)
	}
	o, err = FromEnv(lookup(map[string]string{"CONFORMANCE_CLIENT_ID": "qa-app", "CONFORMANCE_TAGS": "@AUTH-6"}))
	if err != nil || o.DemoCredentials || o.Target.Credentials.ClientID != "qa-app" || o.DefaultTags || o.Tags != "@AUTH-6" {
		t.Fatalf("with variables: %+v (%v)", o, err)
	}
}

// TestVariablesAreWhatFromEnvReads: Variables names every variable
// FromEnv asks for, against a deployment with a control API too, but for
// the standard proxy variables, and no other.
func TestVariablesAreWhatFromEnvReads(t *testing.T) {
	var read []string
	set := map[string]string{"BASE_URL": "http://127.0.0.1:8080", "CONTROL_URL": "http://127.0.0.1:9090"}
	if _, err := FromEnv(func(name string) (string, bool) {
		if !slices.Contains(read, name) {
			read = append(read, name)
		}
		v, ok := set[name]
		return v, ok
	}); err != nil {
		t.Fatal(err)
	}
	proxies := []string{"HTTP_PROXY", "http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy"}
	for _, name := range read {
		if !slices.Contains(Variables, name) && !slices.Contains(proxies, name) {
			t.Errorf("FromEnv reads %s, which Variables does not name", name)
		}
	}
	for _, name := range Variables {
		if !slices.Contains(read, name) {
			t.Errorf("Variables names %s, which FromEnv does not read", name)
		}
	}
}

func TestTheMaxAnswerIsReadAsASize(t *testing.T) {
	for v, want := range map[string]int64{"": 0, "512KiB": 512 << 10, "8 MiB": 8 << 20, "65536": 65536} {
		o, err := FromEnv(lookup(map[string]string{"CONFORMANCE_MAX_ANSWER": v}))
		if err != nil || o.Target.MaxAnswer != want {
			t.Errorf("CONFORMANCE_MAX_ANSWER=%q: %d (%v), want %d", v, o.Target.MaxAnswer, err, want)
		}
	}
}

// TestSlowSelectsTheLifetimesBesideTheDefaultSelection: CONFORMANCE_SLOW
// adds the @slow scenarios to the default selection of every target,
// and to a tag expression that does not name @slow; without it they are
// left out, saying why; a value that is not yes or no is refused.
func TestSlowSelectsTheLifetimesBesideTheDefaultSelection(t *testing.T) {
	slowRun := func(vars map[string]string) (run, left map[string]bool) {
		t.Helper()
		o, err := FromEnv(lookup(vars))
		if err != nil {
			t.Fatal(err)
		}
		plan, _, err := plan(o)
		if err != nil {
			t.Fatal(err)
		}
		run, left = map[string]bool{}, map[string]bool{}
		for _, p := range plan {
			if slices.Contains(p.Tags, "@slow") {
				if p.Run {
					run[p.Place()] = true
				} else if p.Reason == selection.ReasonSlow {
					left[p.Place()] = true
				}
			}
		}
		return run, left
	}
	remote := map[string]string{"BASE_URL": "https://staging.example"}
	if run, left := slowRun(remote); len(run) != 0 || len(left) != 4 {
		t.Errorf("without CONFORMANCE_SLOW: %d @slow scenarios run, %d left out as @slow; want none and 4", len(run), len(left))
	}
	for name, vars := range map[string]map[string]string{
		"a deployment":               {"BASE_URL": "https://staging.example", "CONFORMANCE_SLOW": "1"},
		"one with a control API":     {"BASE_URL": "http://127.0.0.1:8080", "CONTROL_URL": "http://127.0.0.1:9090", "CONFORMANCE_SLOW": "true"},
		"the in-process server":      {"CONFORMANCE_SLOW": "1"},
		"tags that do not name them": {"BASE_URL": "https://staging.example", "CONFORMANCE_SLOW": "1", "CONFORMANCE_TAGS": "@spec and not @writes"},
	} {
		if run, _ := slowRun(vars); len(run) != 4 {
			t.Errorf("%s with CONFORMANCE_SLOW: %d @slow scenarios run, want 4", name, len(run))
		}
	}
	o, err := FromEnv(lookup(map[string]string{"BASE_URL": "https://staging.example", "CONFORMANCE_SLOW": "1"}))
	if err != nil || !o.Slow || o.Tags != "@spec && ~@local" {
		t.Errorf("CONFORMANCE_SLOW=1: slow %v, tags %q (%v)", o.Slow, o.Tags, err)
	}
	if _, err := FromEnv(lookup(map[string]string{"CONFORMANCE_SLOW": "an hour"})); !errors.Is(err, ErrUsage) || !strings.Contains(err.Error(), "CONFORMANCE_SLOW") {
		t.Errorf("CONFORMANCE_SLOW=an hour: %v, want a usage error naming it", err)
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
