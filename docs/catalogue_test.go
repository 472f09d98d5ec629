package docs

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const twoSections = `# Rules

Some words.

## TOK — token endpoint

| rule | kind | statement |
|---|---|---|
| TOK-1 | spec | ` + "`POST /oauth/token`" + ` authenticates the client. |
| TOK-2 | ref | Errors follow RFC 6749 §5.2; a | inside stays. |

## LIM — limits
| id | kind | rule |
|:--|:-:|--:|
| LIM-1 | spec | An access token stops working 600 s after issue. |
`

func TestParseCatalogueReadsSectionsAndRules(t *testing.T) {
	c, err := ParseCatalogue(twoSections)
	if err != nil {
		t.Fatal(err)
	}
	tok := Section{Code: "TOK", Title: "token endpoint"}
	lim := Section{Code: "LIM", Title: "limits"}
	if got := c.Sections(); !slices.Equal(got, []Section{tok, lim}) {
		t.Errorf("sections %v", got)
	}
	want := []Rule{
		{ID: "TOK-1", Kind: Spec, Text: "`POST /oauth/token` authenticates the client.", Section: tok},
		{ID: "TOK-2", Kind: Ref, Text: "Errors follow RFC 6749 §5.2; a | inside stays.", Section: tok},
		{ID: "LIM-1", Kind: Spec, Text: "An access token stops working 600 s after issue.", Section: lim},
	}
	if got := c.Rules(); !slices.Equal(got, want) {
		t.Errorf("rules\n%v, want\n%v", got, want)
	}
	if r, ok := c.Rule("TOK-2"); !ok || r != want[1] {
		t.Errorf("Rule(TOK-2) = %v, %v", r, ok)
	}
	if _, ok := c.Rule("TOK-3"); ok {
		t.Error("Rule(TOK-3) found a rule the catalogue does not list")
	}
}

func TestParseCatalogueRefusesMalformedRows(t *testing.T) {
	tests := []struct {
		name, row, want string
	}{
		{"unknown kind", "| TOK-3 | must | Something. |", `line 7: rule TOK-3: kind "must" is neither spec nor ref`},
		{"missing cell", "| TOK-3 | spec |", "line 7: a rule row needs three cells"},
		{"empty statement", "| TOK-3 | spec |  |", "line 7: rule TOK-3 has no statement"},
		{"id of another section", "| LIM-3 | spec | Something. |", `line 7: "LIM-3" is not a rule id of section TOK`},
		{"id without a number", "| TOK-x | spec | Something. |", `line 7: "TOK-x" is not a rule id of section TOK`},
		{"id with a leading zero", "| TOK-03 | spec | Something. |", `line 7: "TOK-03" is not a rule id of section TOK`},
		{"id listed twice", "| TOK-1 | ref | Again. |", "line 7: rule TOK-1 is listed twice"},
		{"section twice", "## TOK — again", "line 7: section TOK appears twice"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "## TOK — token endpoint\n\n| id | kind | rule |\n|---|---|---|\n| TOK-1 | spec | One. |\n| TOK-2 | spec | Two. |\n" + tt.row + "\n"
			_, err := ParseCatalogue(text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v, want one containing %q", err, tt.want)
			}
		})
	}
}

func TestParseCatalogueRefusesRulesOutsideASection(t *testing.T) {
	for name, text := range map[string]string{
		"before any section":  "# Rules\n\n| id | kind | rule |\n|---|---|---|\n| TOK-1 | spec | One. |\n",
		"under a non-section": "## TOK — token endpoint\n\n## Notes\n\n| id | kind | rule |\n|---|---|---|\n| TOK-1 | spec | One. |\n",
	} {
		if _, err := ParseCatalogue(text); err == nil || !strings.Contains(err.Error(), "a table row outside") {
			t.Errorf("%s: error %v", name, err)
		}
	}
}

func TestParseCatalogueRefusesACatalogueWithoutRules(t *testing.T) {
	if _, err := ParseCatalogue("# Rules\n\n## TOK — token endpoint\n"); err == nil {
		t.Error("no error")
	}
}

func TestParseCatalogueReportsEveryBadRow(t *testing.T) {
	_, err := ParseCatalogue("## TOK — t\n| TOK-1 | spec | One. |\n| TOK-2 | maybe | Two. |\n| TOK-3 | spec | |\n")
	if err == nil || !strings.Contains(err.Error(), "line 3:") || !strings.Contains(err.Error(), "line 4:") {
		t.Errorf("error %v, want lines 3 and 4", err)
	}
}

func TestRuleCatalogueReadsDocsRules(t *testing.T) {
	c, err := RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	r, ok := c.Rule("AUTH-6")
	if !ok || r.Kind != Spec || r.Section.Code != "AUTH" || !strings.Contains(r.Text, "403") {
		t.Errorf("AUTH-6: %+v, %v", r, ok)
	}
	if again, _ := RuleCatalogue(); again != c {
		t.Error("the catalogue is parsed more than once")
	}
}

// TestParseCatalogueReadsTheSpecificationsRules: the copy of the
// specification's numbered rules has the catalogue's format.
func TestParseCatalogueReadsTheSpecificationsRules(t *testing.T) {
	text, err := os.ReadFile(filepath.Join("spec", "RULES.md"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := ParseCatalogue(string(text))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.Rule("SVC-1"); !ok {
		t.Error("no SVC-1")
	}
}
