package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/explore"
	"eventsvc/docs"
	"eventsvc/features"
	"eventsvc/internal/docsite"
)

// TestCommittedPageIsUpToDate fails when features/, docs/rules.md or the
// server's answers changed without `make docs`.
func TestCommittedPageIsUpToDate(t *testing.T) {
	exchanges, err := docsite.Record()
	if err != nil {
		t.Fatal(err)
	}
	want, err := docsite.Render(features.FS, exchanges, explore.Rules())
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", docsite.Path))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s is out of date (first difference at line %d: %q, want %q): run make docs", docsite.Path, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s is out of date (%d lines, want %d): run make docs", docsite.Path, len(gl), len(wl))
	}
}

// TestTheRulesExplorationChecksAreMarked: every rule explore.Rules lists,
// and no other, is marked "explored" on the page.
func TestTheRulesExplorationChecksAreMarked(t *testing.T) {
	page, err := os.ReadFile(filepath.Join("..", "..", docsite.Path))
	if err != nil {
		t.Fatal(err)
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range catalogue.Rules() {
		heading := `<a href="#` + r.ID + `">` + r.ID + `</a> <span class="tag ` + string(r.Kind) + `">` + string(r.Kind) + `</span>`
		marked := strings.Contains(string(page), heading+` <span class="tag flag">explored</span></h4>`)
		if !strings.Contains(string(page), heading) {
			t.Fatalf("no heading for %s", r.ID)
		}
		if want := slices.Contains(explore.Rules(), r.ID); marked != want {
			t.Errorf("%s is marked explored: %v, want %v", r.ID, marked, want)
		}
	}
}
