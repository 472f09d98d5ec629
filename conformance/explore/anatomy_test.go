package explore

import (
	"bytes"
	"context"
	"net/http"
	"slices"
	"sync"
	"testing"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/mutate"
)

// TestEveryPartOfTheRequestsARunSendsIsInTheCatalogue: the parts of
// every request an exploration sends, of each kind the operators vary
// (mutate.KindOf, mutate.PartsOf), are rows of the catalogue's matrix
// (mutate.Anatomy) or parts it says it leaves alone, and why
// (mutate.Unvaried): a part a request gains that nobody listed fails
// here.
func TestEveryPartOfTheRequestsARunSendsIsInTheCatalogue(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]map[string]bool{}
	note := func(r *http.Request, body []byte, _ int) {
		req := mutate.Request{Method: r.Method, URL: r.URL, Header: r.Header.Clone(), Body: bytes.Clone(body)}
		kind := mutate.KindOf(req)
		if kind == "" {
			return
		}
		mu.Lock()
		defer mu.Unlock()
		if seen[kind] == nil {
			seen[kind] = map[string]bool{}
		}
		for _, part := range mutate.PartsOf(kind, req) {
			seen[kind][part] = true
		}
	}
	var out bytes.Buffer
	if _, err := Run(context.Background(), Options{Target: remote(flawed.StartProxy(t, flawed.Flaw{Name: "none"}, note)), Seed: 3, MaxActions: 150, Output: &out}); err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	for _, kind := range mutate.Kinds {
		if len(seen[kind]) == 0 {
			t.Errorf("the run sent no request of kind %q", kind)
		}
		for part := range seen[kind] {
			if _, left := mutate.Unvaried[kind][part]; !slices.Contains(mutate.Anatomy[kind], part) && !left {
				t.Errorf("the run sent a request of kind %q with a part %q, which the catalogue neither varies nor says it leaves alone", kind, part)
			}
		}
	}
}
