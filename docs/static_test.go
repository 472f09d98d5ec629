package docs

import (
	"strings"
	"testing"
)

func TestDocsPageStandsAloneWithItsStylesheetInlined(t *testing.T) {
	page, err := Page()
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	for _, gone := range []string{`href="/css/`, `href="/favicon.ico"`} {
		if strings.Contains(s, gone) {
			t.Errorf("the page still has %s", gone)
		}
	}
	if !strings.Contains(s, "<style>") || !strings.Contains(s, `id="AUTH-6"`) {
		t.Error("the page lacks its inlined stylesheet or the anchor of a rule")
	}
}
