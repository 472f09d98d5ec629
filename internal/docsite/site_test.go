package docsite

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"eventsvc/docs"
	"eventsvc/docs/openapi"
	"eventsvc/server"
	"eventsvc/server/config"
	"eventsvc/server/servertest"
)

// committedPage is the documentation page as committed.
func committedPage(t *testing.T) string {
	t.Helper()
	page, err := os.ReadFile(filepath.Join("..", "..", Path))
	if err != nil {
		t.Fatal(err)
	}
	return string(page)
}

func TestEveryRuleAndSectionHasAnAnchor(t *testing.T) {
	page := committedPage(t)
	ids := anchors(page)
	for _, a := range Anchors {
		if !ids[a] {
			t.Errorf("no anchor %q", a)
		}
	}
	catalogue, err := docs.RuleCatalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range catalogue.Rules() {
		if !ids[r.ID] {
			t.Errorf("no anchor for rule %s", r.ID)
		}
	}
}

// TestEveryProfileLinkResolvesToAnAnchor follows every profile link the
// reference server emits, on a loopback port, and looks its fragment up in
// the page the same server serves.
func TestEveryProfileLinkResolvesToAnAnchor(t *testing.T) {
	base := startServer(t)

	token := passwordGrant(t, base)
	event := `{"name":"n","description":"d","beginEnrollmentDateTime":"2026-11-23T10:00:00","closeEnrollmentDateTime":"2026-11-24T10:00:00","beginEventDateTime":"2026-11-25T18:00:00","endEventDateTime":"2026-11-25T21:00:00"}`
	var profiles []string
	for _, r := range []struct{ method, path, body string }{
		{"GET", "/api", ""},
		{"POST", "/api/events", event},
		{"GET", "/api/events", ""},
		{"GET", "/api/events/1", ""},
		{"PUT", "/api/events/1", event},
	} {
		body := call(t, r.method, base+r.path, token, r.body)
		var doc struct {
			Links map[string]struct{ Href string } `json:"_links"`
		}
		if err := json.Unmarshal(body, &doc); err != nil || doc.Links["profile"].Href == "" {
			t.Fatalf("%s %s: no profile link in %s", r.method, r.path, body)
		}
		profiles = append(profiles, doc.Links["profile"].Href)
	}
	pages := map[string]map[string]bool{}
	for _, p := range profiles {
		u, err := url.Parse(p)
		if err != nil || u.Fragment == "" {
			t.Errorf("profile %q has no fragment", p)
			continue
		}
		doc := *u
		doc.Fragment = ""
		if pages[doc.String()] == nil {
			pages[doc.String()] = anchors(string(call(t, "GET", doc.String(), "", "")))
		}
		if !pages[doc.String()][u.Fragment] {
			t.Errorf("profile %q: the page has no anchor %q", p, u.Fragment)
		}
	}
}

func passwordGrant(t *testing.T, base string) string {
	t.Helper()
	form := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}
	req, _ := http.NewRequest("POST", base+"/oauth/token", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.SetBasicAuth("myApp", "pass")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("no token: %v", err)
	}
	return tok.AccessToken
}

func call(t *testing.T, method, address, token, body string) []byte {
	t.Helper()
	req, _ := http.NewRequest(method, address, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, address, resp.StatusCode, b)
	}
	return b
}

// anchors returns the ids of a page's elements.
func anchors(page string) map[string]bool {
	ids := map[string]bool{}
	for _, part := range strings.Split(page, ` id="`)[1:] {
		if end := strings.IndexByte(part, '"'); end > 0 {
			ids[part[:end]] = true
		}
	}
	return ids
}

// startServer starts a reference server with the demo configuration on a
// loopback port, stopped at the end of the test, and returns its base URL.
func startServer(t *testing.T) string {
	t.Helper()
	cfg, err := config.Demo()
	if err != nil {
		t.Fatal(err)
	}
	return servertest.New(t, server.New(server.Options{Config: cfg})).URL
}

// TestAnOutlineIsShownUnderEachRuleWithItsOwnExamples: an outline whose
// examples tables check different rules is written under each of them with
// only that rule's tables, and every anchor of the page is unique.
func TestAnOutlineIsShownUnderEachRuleWithItsOwnExamples(t *testing.T) {
	page := committedPage(t)
	seen := map[string]bool{}
	for _, m := range regexp.MustCompile(`\bid="([^"]+)"`).FindAllStringSubmatch(page, -1) {
		if seen[m[1]] {
			t.Errorf("the id %q stands twice in the page", m[1])
		}
		seen[m[1]] = true
	}
	article := func(id string) string {
		start := strings.Index(page, `<article class="rule" id="`+id+`">`)
		if start < 0 {
			t.Fatalf("no article for %s", id)
		}
		end := strings.Index(page[start:], "</article>")
		return page[start : start+end]
	}
	tok14, tok3 := article("TOK-14"), article("TOK-3")
	if !strings.Contains(tok14, "a refresh of the access token") || strings.Contains(tok14, "the user&#39;s token with a wrong password") {
		t.Errorf("under TOK-14, the outline of refused token requests does not show just its TOK-14 examples:\n%s", tok14)
	}
	if !strings.Contains(tok3, "the user&#39;s token with a wrong password") || strings.Contains(tok3, "a refresh of the access token") {
		t.Errorf("under TOK-3, the outline of refused token requests does not show just its TOK-3 examples:\n%s", tok3)
	}
}

// TestThePageLinksToTheOpenAPIDocument: client developers find the
// machine-readable description from the documentation page.
func TestThePageLinksToTheOpenAPIDocument(t *testing.T) {
	if !strings.Contains(committedPage(t), `href="`+openapi.Path+`"`) {
		t.Fatalf("%s has no link to %s", Path, openapi.Path)
	}
}
