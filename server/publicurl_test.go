package server

import (
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"eventsvc/docs"
)

// addresses returns every address the answer to method path at addr
// names: the hrefs of its body and its Location.
func addresses(t *testing.T, addr, method, path string, header map[string]string, body string) []string {
	t.Helper()
	resp, text := rawRequest(t, addr, method, path, header, body)
	var out []string
	if loc := resp.Header.Get("Location"); loc != "" {
		out = append(out, loc)
	}
	for _, m := range regexp.MustCompile(`"href":"([^"]*)"`).FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	if len(out) == 0 {
		t.Fatalf("%s %s answered %d with no address: %s", method, path, resp.StatusCode, text)
	}
	return out
}

// userToken is a token of the demo user from the server at addr.
func userToken(t *testing.T, addr string) string {
	t.Helper()
	form := map[string]string{"Authorization": basicHeader("myApp:pass"), "Content-Type": "application/x-www-form-urlencoded"}
	_, body := rawRequest(t, addr, "POST", "/oauth/token", form, "grant_type=password&username=user%40email.com&password=user")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(body), &tok); err != nil || tok.AccessToken == "" {
		t.Fatalf("no token: %s", body)
	}
	return tok.AccessToken
}

// everyAddress is every address the API's answers name, to each kind of
// caller: the root, a creation (its body and Location), a page of the
// list with its paging links, an event, an update, and a refusal.
func everyAddress(t *testing.T, addr string, header map[string]string) []string {
	t.Helper()
	auth := map[string]string{"Authorization": "Bearer " + userToken(t, addr), "Content-Type": "application/json"}
	for k, v := range header {
		auth[k] = v
	}
	var all []string
	all = append(all, addresses(t, addr, "GET", "/api", header, "")...)
	created := addresses(t, addr, "POST", "/api/events", auth, newEvent)
	all = append(all, created...)
	path := created[0][strings.Index(created[0], "/api/"):]
	addresses(t, addr, "POST", "/api/events", auth, newEvent) // a second page
	all = append(all, addresses(t, addr, "GET", "/api/events?page=1&size=1", header, "")...)
	all = append(all, addresses(t, addr, "GET", path, auth, "")...)
	all = append(all, addresses(t, addr, "PUT", path, auth, newEvent)...)
	all = append(all, addresses(t, addr, "POST", "/api/events", auth, `{"name":""}`)...)
	return all
}

// TestAPublicURLStartsEveryAddress: with a public URL, every link and
// Location starts with it, whatever the request's headers say, a trusted
// proxy's forwarding headers included.
func TestAPublicURLStartsEveryAddress(t *testing.T) {
	const public = "https://staging.example/events-service"
	addr, _ := listenWith(t, Options{PublicURL: public + "/", TrustedProxies: trusted(t, "127.0.0.1"), ForwardedHost: true, TokenRate: -1})
	header := map[string]string{"X-Forwarded-For": "203.0.113.9", "X-Forwarded-Proto": "http", "X-Forwarded-Host": "evil.example", "X-Forwarded-Prefix": "/elsewhere"}
	for _, a := range everyAddress(t, addr, header) {
		if !strings.HasPrefix(a, public+"/") {
			t.Errorf("an address does not start with the public URL %s: %s", public, a)
		}
	}
}

// TestATrustedProxysPrefixStartsEveryAddress: from a trusted proxy, with
// ForwardedHost, X-Forwarded-Prefix is the path of every address, beside
// the proxy's scheme and host, with or without X-Forwarded-For; from any
// other peer, or without ForwardedHost, it is ignored; a prefix that
// cannot stand in a link is ignored.
func TestATrustedProxysPrefixStartsEveryAddress(t *testing.T) {
	addr, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1"), ForwardedHost: true, TokenRate: -1})
	proxied := map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Host": "staging.example:8443", "X-Forwarded-Prefix": "/events-service/"}
	for _, a := range everyAddress(t, addr, proxied) {
		if !strings.HasPrefix(a, "https://staging.example:8443/events-service/") {
			t.Errorf("without X-Forwarded-For, an address does not take the proxy's scheme, host and prefix: %s", a)
		}
	}
	proxied["X-Forwarded-For"] = "203.0.113.9"
	if href := eventsHref(t, clientFrom("127.0.0.1"), addr, proxied); href != "https://staging.example:8443/events-service/api/events" {
		t.Errorf("with X-Forwarded-For: %s", href)
	}
	for _, bad := range []string{"events-service", "/a/../b", "/a//b", "//evil.example", "/a b", "/a?b", `/a"b`, "/a%2Fb", "/<script>"} {
		h := map[string]string{"X-Forwarded-Host": "staging.example", "X-Forwarded-Prefix": bad}
		if href := eventsHref(t, clientFrom("127.0.0.1"), addr, h); href != "http://staging.example/api/events" {
			t.Errorf("the prefix %q is taken: %s", bad, href)
		}
	}
	untrusted := clientFrom("127.0.0.2")
	if href := eventsHref(t, untrusted, addr, proxied); href != "http://"+addr+"/api/events" {
		t.Errorf("from an untrusted peer: %s", href)
	}
	plain, _ := listenWith(t, Options{TrustedProxies: trusted(t, "127.0.0.1")})
	if href := eventsHref(t, clientFrom("127.0.0.1"), plain, proxied); href != "http://"+plain+"/api/events" {
		t.Errorf("without ForwardedHost: %s", href)
	}
}

// TestTheDocumentationPageShowsThePublicURL: under a public URL, every
// absolute address of the documentation page starts with it, its
// stylesheet, icon and OpenAPI document included; without one the page
// is served as embedded.
func TestTheDocumentationPageShowsThePublicURL(t *testing.T) {
	const public = "https://staging.example/events-service"
	addr, _ := listenWith(t, Options{PublicURL: public})
	resp, page := rawRequest(t, addr, "GET", "/docs/index.html", nil, "")
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("the page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Contains(page, docsExampleBase) {
		t.Errorf("the page still shows %s", docsExampleBase)
	}
	for _, m := range regexp.MustCompile(`(?:href|src)="([^"#]*)"`).FindAllStringSubmatch(page, -1) {
		if m[1] != "" && !strings.HasPrefix(m[1], public+"/") && !strings.Contains(m[1], "://") {
			t.Errorf("an address of the page does not start with the public URL: %s", m[1])
		}
	}
	for _, want := range []string{`href="` + public + `/css/docs.css"`, public + "/api/events", public + "/oauth/token"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if _, again := rawRequest(t, addr, "GET", "/docs/", nil, ""); again != page {
		t.Error("/docs/ and /docs/index.html differ")
	}

	plain, _ := listenWith(t, Options{})
	_, page = rawRequest(t, plain, "GET", "/docs/index.html", map[string]string{"X-Forwarded-Prefix": "/x"}, "")
	embedded, _ := docs.Static.ReadFile("static" + docsPath)
	if page != string(embedded) {
		t.Error("without a public URL or a trusted proxy, the page is not served as embedded")
	}
}

// TestAForwardedHostIsEscapedInTheDocumentationPage: what a trusted proxy
// forwards is written into the page escaped for HTML.
func TestAForwardedHostIsEscapedInTheDocumentationPage(t *testing.T) {
	page := string(rebase([]byte(`<a href="/x">http://localhost:8080/api</a>`), `http://a"b<c>`))
	if want := `<a href="http://a&#34;b&lt;c&gt;/x">http://a&#34;b&lt;c&gt;/api</a>`; page != want {
		t.Errorf("rebase: %s, want %s", page, want)
	}
}

func TestParsePublicURL(t *testing.T) {
	for in, want := range map[string]string{
		"https://staging.example":                  "https://staging.example",
		"https://staging.example/":                 "https://staging.example",
		"https://staging.example:8443/events/v1/":  "https://staging.example:8443/events/v1",
		"http://[::1]:8080/events-service":         "http://[::1]:8080/events-service",
		"HTTPS://Staging.Example/Events_Service.1": "https://Staging.Example/Events_Service.1",
	} {
		got, err := ParsePublicURL(in)
		if err != nil || got.String() != want {
			t.Errorf("ParsePublicURL(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	for in, why := range map[string]string{
		"staging.example":                "not an http or https URL",
		"ftp://staging.example":          "not an http or https URL",
		"https://":                       "names no host",
		"https://user:pw@staging.ex":     "user name or password",
		"https://staging.example/?a=1":   "query or fragment",
		"https://staging.example/#top":   "query or fragment",
		"https://staging.example/a/../b": "cannot prefix",
		"https://staging.example/a%20b":  "cannot prefix",
		"https://staging.example//a":     "cannot prefix",
		"https://sta ging.example":       "not a URL",
	} {
		_, err := ParsePublicURL(in)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("ParsePublicURL(%q) = %v, want an error saying %q", in, err, why)
		}
		if strings.Contains(in, "pw@") && err != nil && strings.Contains(err.Error(), "pw") {
			t.Errorf("the error repeats the password: %v", err)
		}
	}
	if err := (Options{PublicURL: "ftp://x"}).Validate(); err == nil {
		t.Error("Validate takes a bad public URL")
	}
}
