package main

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
)

// usageEntries are the flags of a usage text, each with its description.
func usageEntries(usage string) map[string]string {
	entries := map[string]string{}
	name := ""
	for _, line := range strings.Split(usage, "\n") {
		if m := regexp.MustCompile(`^  -([a-z][a-z-]*)`).FindStringSubmatch(line); m != nil {
			name = m[1]
			entries[name] = ""
			continue
		}
		if name != "" {
			entries[name] += strings.TrimSpace(line) + " "
		}
	}
	return entries
}

// TestTheUsageNamesExplore: conformance -h tells of the explore
// subcommand, and how to get its help.
func TestTheUsageNamesExplore(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-h"}, env(nil), &out, &errs); code != exitPassed {
		t.Fatalf("-h: exit %d", code)
	}
	for _, want := range []string{"conformance explore", "conformance explore -h"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("conformance -h does not say %q:\n%s", want, errs.String())
		}
	}
}

// TestTheUsageSaysTheRunExploresOnce: conformance -h has -explore, the
// time of the exploration that follows the scenarios, and the budget
// flags of conformance explore it takes, which one entry names together,
// once.
func TestTheUsageSaysTheRunExploresOnce(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"-h"}, env(nil), &out, &errs); code != exitPassed {
		t.Fatalf("-h: exit %d", code)
	}
	entries := usageEntries(errs.String())
	budget := []string{"-seed", "-max-actions", "-max-events", "-failed-logins"}
	for _, flag := range append([]string{"-explore"}, budget...) {
		if _, ok := entries[strings.TrimPrefix(flag, "-")]; !ok {
			t.Errorf("conformance -h has no %s:\n%s", flag, errs.String())
		}
	}
	naming := 0
	for _, text := range entries {
		all := true
		for _, flag := range budget {
			all = all && regexp.MustCompile(regexp.QuoteMeta(flag)+`\b`).MatchString(text)
		}
		if all {
			naming++
		}
	}
	if naming != 1 || !strings.Contains(entries["explore"], "conformance explore") {
		t.Errorf("%d entries of conformance -h name the exploration's budget flags together, want one, -explore's, saying they are conformance explore's:\n%s", naming, errs.String())
	}
}

// TestEachDefaultIsSaidOnce: in the help of conformance and of
// conformance explore, no flag says its default twice, even when the
// variables it stands for are set (the flag package then prints their
// values as defaults too); each flag that stands for a variable names it
// once.
func TestEachDefaultIsSaidOnce(t *testing.T) {
	vars := map[string]string{"BASE_URL": "https://staging.example", "CONTROL_URL": "http://127.0.0.1:9090"}
	for _, name := range []string{"TAGS", "REPORT_DIR", "CONCURRENCY", "RETRIES", "TIMEOUT", "CA_FILE", "EXPECTED_FAILURES",
		"SEED", "MAX_ACTIONS", "MAX_TIME", "MAX_EVENTS", "FAILED_LOGINS", "EXPLORE"} {
		vars["CONFORMANCE_"+name] = "7"
	}
	for _, args := range [][]string{{"-h"}, {"explore", "-h"}} {
		var out, errs bytes.Buffer
		if code := run(args, env(vars), &out, &errs); code != exitPassed {
			t.Fatalf("%v: exit %d", args, code)
		}
		entries := usageEntries(errs.String())
		if len(entries) < 10 {
			t.Fatalf("%v: only %d flags:\n%s", args, len(entries), errs.String())
		}
		for flag, text := range entries {
			if n := len(regexp.MustCompile(`(?i)\bdefault`).FindAllString(text, -1)); n > 1 {
				t.Errorf("%v: -%s says its default %d times: %s", args, flag, n, text)
			}
			if vars := regexp.MustCompile(`\$[A-Z_]+`).FindAllString(text, -1); len(vars) > 1 && flag != "control-url" {
				t.Errorf("%v: -%s names %d variables: %s", args, flag, len(vars), text)
			}
		}
	}
}

// TestAGivenFlagReplacesItsVariable: a flag that stands for a variable
// replaces it when given, even empty (-base-url "": the in-process
// server, whatever BASE_URL says).
func TestAGivenFlagReplacesItsVariable(t *testing.T) {
	vars := map[string]string{"BASE_URL": "https://staging.example", "CONFORMANCE_TAGS": "@AUTH-6"}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{nil, `selected by "@AUTH-6 && ~@local && ~@ref && ~@slow"`},
		{[]string{"-base-url", ""}, `selected by "@AUTH-6 && ~@slow"`},
		{[]string{"-tags", "@SVC-1"}, `selected by "@SVC-1 && ~@local && ~@ref && ~@slow"`},
	} {
		var out, errs bytes.Buffer
		if code := run(append([]string{"-list"}, tt.args...), env(vars), &out, &errs); code != exitPassed {
			t.Fatalf("%v: exit %d: %s", tt.args, code, errs.String())
		}
		if !strings.Contains(out.String(), tt.want) {
			t.Errorf("%v: the list is not %s:\n%s", tt.args, tt.want, out.String())
		}
	}
}
