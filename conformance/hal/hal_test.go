package hal

import (
	"net/url"
	"testing"
)

func TestLinksReadsEachRelationsHref(t *testing.T) {
	doc := map[string]any{"_links": map[string]any{
		"self":   map[string]any{"href": "events/1"},
		"many":   []any{map[string]any{"href": "a"}, map[string]any{"href": "b"}},
		"nohref": map[string]any{"title": "x"},
		"number": map[string]any{"href": 3.0},
	}}
	got := Links(doc)
	if len(got) != 2 || got["self"] != "events/1" || got["many"] != "a" {
		t.Fatalf("Links = %v", got)
	}
	if RelNames(got) != `"many", "self"` || RelNames(nil) != "none" {
		t.Fatalf("RelNames = %s", RelNames(got))
	}
}

func TestItemsReadsEmbeddedListsOrTopLevelOnes(t *testing.T) {
	embedded := map[string]any{"_embedded": map[string]any{"events": []any{map[string]any{"id": 1.0}, "not an object"}}}
	if got := Items(embedded); len(got) != 1 || got[0]["id"] != 1.0 {
		t.Fatalf("Items(embedded) = %v", got)
	}
	plain := map[string]any{"content": []any{map[string]any{"id": 2.0}}}
	if got := Items(plain); len(got) != 1 {
		t.Fatalf("Items(plain) = %v", got)
	}
}

func TestExpandAndResolve(t *testing.T) {
	if got := Expand("events/{id}", map[string]string{"id": "a b/c"}); got != "events/a%20b%2Fc" {
		t.Fatalf("Expand = %q", got)
	}
	base, _ := url.Parse("http://h/api/events?page=1")
	for href, want := range map[string]string{
		"events/1":         "http://h/api/events/1",
		"/docs/index.html": "http://h/docs/index.html",
		"?page=2":          "http://h/api/events?page=2",
		"https://x/y":      "https://x/y",
	} {
		if got := Resolve(base, href); got != want {
			t.Errorf("Resolve(%q) = %q, want %q", href, got, want)
		}
	}
}
