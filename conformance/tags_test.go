package conformance

import "testing"

func TestMatchTagsFollowsGodog(t *testing.T) {
	tags := []string{"@spec", "@AUTH-6", "@writes"}
	tests := []struct {
		expr string
		want bool
	}{
		{"", true},
		{"@spec", true},
		{"@ref", false},
		{"@spec && ~@local && ~@slow", true},
		{"@spec && ~@writes", false},
		{"@ref,@AUTH-6", true},
		{"~@spec", false},
		{"@ref,~@local", true},
	}
	for _, tt := range tests {
		if got := MatchTags(tt.expr, tags); got != tt.want {
			t.Errorf("MatchTags(%q) = %v, want %v", tt.expr, got, tt.want)
		}
	}
}
