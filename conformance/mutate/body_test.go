package mutate

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestAValueOfAnotherTypeIsSentInEachFieldButTheMarkAndTimes: every field
// of the body is sent with a value of each other JSON type (RFC 8259 §3),
// the number as its text and as a fraction too; the text that holds the
// run's mark and the date-times are left alone, so that the run still
// finds its events and the explorer's times stay valid.
func TestAValueOfAnotherTypeIsSentInEachFieldButTheMarkAndTimes(t *testing.T) {
	op, ok := Find("a value of another type")
	if !ok || op.Way != ByType {
		t.Fatalf("no operator varies a field's type: %+v", op)
	}
	base := bases()[OnWrite]
	base.Body = []byte(`{"name":"Launch [run 7]","capacity":40,"startsAt":"2026-12-01T10:00:00Z","venue":"Hall","open":true}`)
	got := map[string][]string{}
	for _, v := range op.Vary(base, env) {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(v.Body, &fields); err != nil {
			t.Fatalf("%s: %v", v.What, err)
		}
		changed := ""
		for k, raw := range fields {
			var before map[string]json.RawMessage
			_ = json.Unmarshal(base.Body, &before)
			if string(before[k]) != string(raw) {
				if changed != "" {
					t.Errorf("%s changes %s and %s", v.What, changed, k)
				}
				changed = k
				got[k] = append(got[k], string(raw))
			}
		}
	}
	want := map[string][]string{
		"capacity": {"null", `"40"`, "40.5", "true", "[40]", `{"value":40}`},
		"venue":    {"null", "42", "true", `["Hall"]`, `{"value":"Hall"}`},
		"open":     {"null", `"true"`, "1", "[true]", `{"value":true}`},
	}
	for k, vals := range want {
		if !slices.Equal(got[k], vals) {
			t.Errorf("%s sent as %v, want %v", k, got[k], vals)
		}
	}
	for _, k := range []string{"name", "startsAt"} {
		if len(got[k]) > 0 {
			t.Errorf("%s sent as %v: the mark and the times are left alone", k, got[k])
		}
	}
}
