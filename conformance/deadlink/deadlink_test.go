package deadlink

import (
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestWithinTheBaseURL(t *testing.T) {
	b, err := ParseBase("https://staging.example/events-service/")
	if err != nil {
		t.Fatal(err)
	}
	for address, want := range map[string]bool{
		"https://staging.example/events-service/api":        true,
		"https://STAGING.example:443/events-service/api/1":  true,
		"https://staging.example/events-service":            true,
		"https://staging.example/events-service?page=2":     true,
		"https://staging.example/api/events":                false,
		"https://staging.example/events-service-2/api":      false,
		"http://staging.example/events-service/api":         false,
		"https://staging.example:8443/events-service/api":   false,
		"https://other.example/events-service/api":          false,
		"https://staging.example.evil/events-service/api":   false,
		"https://staging.example/events-service/../api/evt": true, // as sent: the suite never cleans a link
	} {
		if got := b.Within(mustURL(t, address)); got != want {
			t.Errorf("Within(%s) = %v, want %v", address, got, want)
		}
	}
	root, _ := ParseBase("http://127.0.0.1:8080")
	if !root.Within(mustURL(t, "http://127.0.0.1:8080/anything")) || root.Within(mustURL(t, "http://127.0.0.1:8081/api")) {
		t.Error("a base URL without a path")
	}
}

// answer is an answer of status with the headers and body given.
func answer(req *http.Request, status int, contentType, body string) *http.Response {
	h := http.Header{}
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("Server", "nginx/1.22.1")
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(strings.NewReader(body)), Request: req}
}

// TestALinkOutsideTheBaseURLThatIsNotTheAPIIsDead: an exchange outside
// the base URL that the API did not answer makes a dead link, with its
// likely cause and fix; an answer of the API's there, or anything within
// the base URL, does not; the body is left whole for the caller.
func TestALinkOutsideTheBaseURLThatIsNotTheAPIIsDead(t *testing.T) {
	const base = "https://staging.example:8443/events-service"
	for _, tt := range []struct {
		name, address string
		status        int // 0: no answer
		contentType   string
		dead          bool
		cause, fix    string
	}{
		{"the prefix lost, the proxy's 404", "https://staging.example:8443/api/events", 404, "text/html", true, "without the path prefix /events-service", "X-Forwarded-Prefix /events-service"},
		{"http under https", "http://staging.example:8443/events-service/api/events", 200, "application/hal+json", true, "TLS ends in front of the server", "X-Forwarded-Proto"},
		{"the port lost, nothing answers", "https://staging.example/events-service/api/events", 0, "", true, "lose the port 8443", "$http_host"},
		{"another host, a gateway's 502", "https://internal:8080/api/events", 502, "text/plain", true, "name the host internal:8080", "X-Forwarded-Host"},
		{"a redirect", "https://staging.example:8443/api/events", 301, "", true, "without the path prefix", ""},
		{"the API elsewhere, answering", "https://api.example/events", 200, "application/hal+json", false, "", ""},
		{"the API elsewhere, refusing in JSON", "https://api.example/events", 401, "application/json", false, "", ""},
		{"within the base URL, a 404", base + "/api/events/99", 404, "text/html", false, "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			l := NewLog(base)
			l.Offered(mustURL(t, tt.address), "events", "GET /events-service/api")
			req, _ := http.NewRequest(http.MethodGet, tt.address+"?page=1#x", nil)
			var resp *http.Response
			var err error
			if tt.status == 0 {
				err = &url.Error{Op: "Get", URL: tt.address, Err: errors.New("connection refused")}
			} else {
				resp = answer(req, tt.status, tt.contentType, "<html>404 Not Found</html>")
			}
			if got := l.Note(req, resp, err); got != tt.dead {
				t.Fatalf("Note = %v, want %v", got, tt.dead)
			}
			link := l.DeadAt(tt.address + "?page=7")
			if !tt.dead {
				if link != nil || len(l.Links()) != 0 {
					t.Errorf("a dead link: %+v", link)
				}
				return
			}
			if link == nil {
				t.Fatal("the address, with another query, is not found dead")
			}
			msg := link.Message()
			for _, want := range []string{tt.address, tt.cause, tt.fix, "-public-url " + base} {
				if !strings.Contains(msg, want) {
					t.Errorf("the finding does not say %q: %s", want, msg)
				}
			}
			if strings.Contains(strings.ReplaceAll(msg, tt.address, ""), "-public-url http:") {
				t.Errorf("the finding advises http: %s", msg)
			}
			if resp != nil {
				if b, _ := io.ReadAll(resp.Body); string(b) != "<html>404 Not Found</html>" {
					t.Errorf("the body left for the caller: %q", b)
				}
			}
		})
	}
}

// TestAnAddressOfTheSuitesOwnAtTheBaseURLsOriginIsNotALink: the suite
// spells the base URL's path otherwise on purpose (AUTH-3): at the base
// URL's origin, only an address a link offered can be a dead link.
func TestAnAddressOfTheSuitesOwnAtTheBaseURLsOriginIsNotALink(t *testing.T) {
	l := NewLog("http://127.0.0.1:8081/events-service")
	req, _ := http.NewRequest(http.MethodPost, "http://127.0.0.1:8081/EVENTS-SERVICE/API/EVENTS", nil)
	if l.Note(req, answer(req, 404, "text/html", "<html></html>"), nil) || len(l.Links()) != 0 {
		t.Error("a spelling of the suite's own is a dead link")
	}
	other, _ := http.NewRequest(http.MethodGet, "http://127.0.0.1:9999/api/events", nil)
	if !l.Note(other, nil, errors.New("connection refused")) {
		t.Error("an address at another origin that nothing answers is not a dead link")
	}
}

// TestTheLinkThatOfferedADeadAddressIsNamed: the link the audit saw
// offered names the finding.
func TestTheLinkThatOfferedADeadAddressIsNamed(t *testing.T) {
	l := NewLog("http://127.0.0.1:8081/events-service")
	u := mustURL(t, "http://127.0.0.1:8081/api/events")
	l.Offered(u, "events", "GET /events-service/api")
	l.Offered(mustURL(t, "http://127.0.0.1:8081/events-service/api/events"), "events", "GET /x") // within: not kept
	req, _ := http.NewRequest(http.MethodGet, u.String(), nil)
	l.Note(req, answer(req, 404, "text/html", "<html></html>"), nil)
	l.Note(req, answer(req, 404, "text/html", "<html></html>"), nil)
	links := l.Links()
	if len(links) != 1 || !strings.HasPrefix(links[0].Message(), `the "events" link of GET /events-service/api leads to http://127.0.0.1:8081/api/events`) {
		t.Fatalf("links: %d, %v", len(links), links)
	}
	if tr := links[0].Transcript(); !strings.Contains(tr, "GET http://127.0.0.1:8081/api/events") || !strings.Contains(tr, "404 Not Found") || !strings.Contains(tr, "Server: nginx/1.22.1") {
		t.Errorf("transcript:\n%s", tr)
	}
}

func TestAnInProcessRunHasNoLog(t *testing.T) {
	var l *Log = NewLog("")
	if l != nil || !l.Within(mustURL(t, "http://127.0.0.1:1/api")) || l.Dead(mustURL(t, "http://x/")) != nil || l.Links() != nil {
		t.Error("a nil Log finds something")
	}
	req, _ := http.NewRequest(http.MethodGet, "http://x/", nil)
	if l.Note(req, nil, errors.New("refused")) {
		t.Error("a nil Log notes")
	}
}

func TestAProxysPageIsToldApart(t *testing.T) {
	h := http.Header{"Content-Type": {"text/html"}, "Server": {"nginx"}}
	if got := ProxyPage(413, h); !strings.Contains(got, "client_max_body_size") || !strings.Contains(got, "nginx") {
		t.Errorf("413: %q", got)
	}
	if got := ProxyPage(404, h); !strings.Contains(got, "own page") {
		t.Errorf("404 HTML: %q", got)
	}
	if got := ProxyPage(404, http.Header{"Content-Type": {"application/json"}}); got != "" {
		t.Errorf("404 JSON: %q", got)
	}
	if got := ProxyPage(200, h); got != "" {
		t.Errorf("200 HTML: %q", got)
	}
}
