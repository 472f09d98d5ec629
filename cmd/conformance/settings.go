package main

import (
	"net/url"
	"strings"

	"eventsvc/conformance/report"
	"eventsvc/suite"
)

// settings are what the user set for cmd, as the reports show them: each
// flag of the command, with the value in effect and where it came from,
// then the variables no flag stands for that env sets. Secrets read
// "(set)", and an address's user information is masked.
func (v *variables) settings(cmd command, env func(string) (string, bool)) []report.Setting {
	var out []report.Setting
	flagged := map[string]bool{}
	for _, f := range flagSpecs() {
		if f.usage[cmd] == "" {
			continue
		}
		flagged[f.variable] = true
		s := report.Setting{Name: "-" + f.name, Value: f.def, From: report.FromDefault}
		if f.boolean {
			s.Value = "off"
		}
		if val, ok := v.given(f.variable); ok {
			s.Value, s.From = val, report.FromFlag
		} else if val, ok := env(f.variable); ok && strings.TrimSpace(val) != "" {
			s.Value, s.From = val, "$"+f.variable
		}
		s.Value = shown(f.variable, s.Value)
		out = append(out, s)
	}
	for _, name := range suite.Variables {
		if val, ok := env(name); ok && !flagged[name] {
			out = append(out, report.Setting{Name: name, Value: shown(name, val), From: "$" + name})
		}
	}
	return out
}

// shown is a setting's value as a report may show it: a secret's is
// "(set)", and an address keeps its user name but not its password.
func shown(name, value string) string {
	if suite.Secret(name) {
		return "(set)"
	}
	if u, err := url.Parse(value); err == nil && u.User != nil {
		return u.Redacted()
	}
	return value
}
