package jsonvalue

import (
	"encoding/json"
	"testing"
)

func TestSameTakesValuesAsAReaderOfJSONDoes(t *testing.T) {
	tests := []struct {
		sent, got any
		want      bool
	}{
		{"Room 4", "Room 4", true},
		{"Room 4", "Room 5", false},
		{"", nil, true},
		{"x", nil, false},
		{"2026-11-25T10:00:00", "2026-11-25T10:00:00Z", true},
		{"2026-11-25T11:00:00+01:00", "2026-11-25T10:00:00Z", true},
		{"2026-11-25T10:00:00Z", "2026-11-25T10:00:01Z", false},
		{json.Number("12.5"), 12.5, true},
		{12.5, "12.5", true},
		{12.5, 12.0, false},
		{true, true, true},
		{true, "true", true},
		{"true", true, true},
		{"120", 120.0, true},
		{"0.5", 0.5, true},
		{"12 ", 12.0, false},
		{"x", 0.0, false},
		{true, 1.0, false},
		{"", map[string]any{}, false},
		{"", []any{}, false},
		{"12.50", 12.5, true},
		{1e21, "1e+21", true},
		{"007", 7.0, false},
		{"+12", 12.0, false},
		{"1_000", 1000.0, false},
		{"0x1p4", 16.0, false},
		{"9007199254740993", 9007199254740992.0, false},
		{"1e-400", 0.0, false},
	}
	for _, tt := range tests {
		if got := Same(tt.sent, tt.got); got != tt.want {
			t.Errorf("Same(%#v, %#v) = %v, want %v", tt.sent, tt.got, got, tt.want)
		}
	}
}

func TestDescribeNamesTheType(t *testing.T) {
	for v, want := range map[any]string{"600": `the string "600"`, 600.0: "the number 600", true: "true"} {
		if got := Describe(v); got != want {
			t.Errorf("Describe(%#v) = %q, want %q", v, got, want)
		}
	}
	if got := Describe(nil); got != "null" {
		t.Errorf("Describe(nil) = %q", got)
	}
}

func TestSameWordsIsASet(t *testing.T) {
	if !SameWords("read write", "write  read") || SameWords("read", "read write") || SameWords("read read", "read write") {
		t.Fatal("SameWords does not compare sets of words")
	}
}

func TestSameWritten(t *testing.T) {
	for _, c := range []struct {
		sent, got any
		want      bool
	}{
		{"2026-11-25T10:00:00.5", "2026-11-25T10:00:00", true},
		{"2026-11-25T10:00:00.123", "2026-11-25T10:00:00.123", true},
		{"2026-11-25T10:00:00.5", "2026-11-25T10:00:02", false},
		{"2026-11-25T10:00:00", "2026-11-25T10:00:01", false},
		{"Main hall", "Main hall ", false},
		{json.Number("2"), float64(2), Same(json.Number("2"), float64(2))},
	} {
		if got := SameWritten(c.sent, c.got); got != c.want {
			t.Errorf("SameWritten(%#v, %#v) = %v, want %v", c.sent, c.got, got, c.want)
		}
	}
}

func TestStoredIsWhatABinderMakesOfAValueByDefault(t *testing.T) {
	for _, c := range []struct {
		sent, got any
		want      bool
	}{
		{100.5, 100.0, true},
		{json.Number("100.5"), 101.0, true},
		{-1.5, -1.0, true},
		{100.5, 99.0, false},
		{2.0, 1.0, false},
		{nil, "", true},
		{nil, 0.0, true},
		{nil, false, true},
		{nil, "null", false},
		{nil, "None", false},
		{"120", 120.0, true},
		{"007", 7.0, true},
		{"+12", 12.0, true},
		{"9007199254740993", 9007199254740992.0, false},
		{42.0, "4", false},
		{"Room 4", "Room", false},
		{[]any{"Room"}, "Room", false},
		{1.0, true, true},
		{0.0, false, true},
		{2.0, true, false},
	} {
		if got := Stored(c.sent, c.got); got != c.want {
			t.Errorf("Stored(%#v, %#v) = %v, want %v", c.sent, c.got, got, c.want)
		}
	}
}
