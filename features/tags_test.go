package features

import (
	"reflect"
	"testing"
)

func TestTags(t *testing.T) {
	tags := Tags{"@spec", "@AUTH-6", "@writes", "@API-10", "@local", "@AUTH-6", "@auth-7", "@TOK-", "@ref"}
	if !tags.Has("@writes") || tags.Has("writes") || tags.Has("@slow") {
		t.Error("Has")
	}
	if got, want := tags.Rules(), []string{"AUTH-6", "API-10"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Rules() = %v, want %v", got, want)
	}
	if got := tags.Kind(); got != "spec" {
		t.Errorf("Kind() = %q, want spec", got)
	}
	if got := (Tags{"@TOK-1"}).Kind(); got != "" {
		t.Errorf("Kind() without @spec or @ref = %q", got)
	}
	if got, want := tags.Flags(), []string{"writes", "local"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Flags() = %v, want %v", got, want)
	}
	if got := (Tags{"@spec"}).Rules(); got != nil {
		t.Errorf("Rules() without rule tags = %v", got)
	}
}
