// Package reporttest checks the reports a run writes, for the tests of
// the runners that write them.
package reporttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/xeipuuv/gojsonschema"
	"golang.org/x/net/html"

	"eventsvc/conformance/report"
)

// Check validates the conformance.json of dir against
// conformance.schema.json (CheckJSON), and checks that its
// conformance.html is one self-contained page (CheckHTML).
func Check(t testing.TB, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, report.JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	CheckJSON(t, b)
	page, err := os.ReadFile(filepath.Join(dir, report.HTMLReport))
	if err != nil {
		t.Fatal(err)
	}
	CheckHTML(t, string(page))
}

// Read checks the reports of dir (Check) and returns what its
// conformance.json says.
func Read(t testing.TB, dir string) report.Document {
	t.Helper()
	Check(t, dir)
	b, err := os.ReadFile(filepath.Join(dir, report.JSONReport))
	if err != nil {
		t.Fatal(err)
	}
	var doc report.Document
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// CheckJSON fails t when doc does not follow conformance.schema.json.
func CheckJSON(t testing.TB, doc []byte) {
	t.Helper()
	res, err := gojsonschema.Validate(gojsonschema.NewBytesLoader(report.ReportSchema), gojsonschema.NewBytesLoader(doc))
	if err != nil {
		t.Fatalf("validate conformance.json: %v", err)
	}
	for _, e := range res.Errors() {
		t.Errorf("conformance.json does not follow its schema: %s", e)
	}
}

// CheckHTML fails t when page holds a script or loads anything from
// elsewhere: a script, link, frame, object, embed or base element, a meta
// http-equiv, an attribute that loads or runs (src, srcset, data, an
// href but a link's, an event handler), an @import or a url() in a
// style. Text is text: what a target sent, escaped, may read
// "<img src=x>" without being an element.
func CheckHTML(t testing.TB, page string) {
	t.Helper()
	z := html.NewTokenizer(strings.NewReader(page))
	inStyle := false
	for {
		switch z.Next() {
		case html.ErrorToken:
			return
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			inStyle = tok.Data == "style"
			if slices.Contains([]string{"script", "link", "iframe", "object", "embed", "base", "frame"}, tok.Data) ||
				tok.Data == "meta" && slices.ContainsFunc(tok.Attr, func(a html.Attribute) bool { return strings.EqualFold(a.Key, "http-equiv") }) {
				t.Errorf("conformance.html holds a <%s> element: it must be self-contained, without script", tok.Data)
			}
			for _, a := range tok.Attr {
				if slices.Contains([]string{"src", "srcset", "srcdoc", "data", "poster", "xlink:href", "formaction", "action"}, a.Key) ||
					a.Key == "href" && tok.Data != "a" || strings.HasPrefix(a.Key, "on") || a.Key == "style" && loads(a.Val) {
					t.Errorf("conformance.html holds <%s %s=%q>: it must be self-contained, without script", tok.Data, a.Key, a.Val)
				}
			}
		case html.EndTagToken:
			inStyle = false
		case html.TextToken:
			if inStyle && loads(string(z.Text())) {
				t.Errorf("conformance.html's style loads from elsewhere (@import or url()): it must be self-contained")
			}
		}
	}
}

// loads reports whether css loads anything.
func loads(css string) bool {
	css = strings.ToLower(css)
	return strings.Contains(css, "@import") || strings.Contains(css, "url(")
}
