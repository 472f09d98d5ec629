package origin

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestOfIsSchemeHostAndPortNormalised(t *testing.T) {
	for in, want := range map[string]string{
		"http://Example.COM/api":         "http://example.com:80",
		"http://example.com:80/x?y#z":    "http://example.com:80",
		"HTTPS://example.com":            "https://example.com:443",
		"https://example.com:0443/":      "https://example.com:443",
		"https://example.com:8443":       "https://example.com:8443",
		"http://user:pw@127.0.0.1:9/api": "http://127.0.0.1:9",
		"http://[::1]:8080/api":          "http://[::1]:8080",
		"http://[::1]/":                  "http://[::1]:80",
		"ftp://example.com/":             "",
		"/api/events":                    "",
		"mailto:a@example.com":           "",
	} {
		u, err := url.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		if got := Of(u); got != want {
			t.Errorf("Of(%q) = %q, want %q", in, got, want)
		}
	}
}

// listener is a loopback server that writes down the credentials of every
// request it gets.
type listener struct {
	*httptest.Server
	mu    sync.Mutex
	got   []string // "Authorization: …", "Cookie: …"
	count int
}

func listen(t *testing.T, h http.HandlerFunc) *listener {
	t.Helper()
	l := &listener{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		l.mu.Lock()
		l.count++
		for _, name := range []string{"Authorization", "Cookie", "Proxy-Authorization"} {
			for _, v := range r.Header.Values(name) {
				l.got = append(l.got, name+": "+v)
			}
		}
		l.mu.Unlock()
		if h != nil {
			h(w, r)
		}
	}))
	t.Cleanup(l.Close)
	return l
}

func (l *listener) seen() (int, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.count, slices.Clone(l.got)
}

// TestAGuardSendsCredentialsOnlyToItsTargetsOrigin: the target and the
// other listener are both on 127.0.0.1, on two ports: two origins, though
// Go's own redirect policy and a cookie jar take them for one host. The
// client follows redirects and keeps cookies, as a careless runner would.
func TestAGuardSendsCredentialsOnlyToItsTargetsOrigin(t *testing.T) {
	other := listen(t, nil)
	target := listen(t, func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "target-session", Path: "/"})
		switch r.URL.Path {
		case "/api/events":
			w.Header().Set("Location", other.URL+"/api/events/1")
			w.WriteHeader(http.StatusCreated)
		case "/moved":
			http.Redirect(w, r, other.URL+"/api/events", http.StatusTemporaryRedirect)
		}
	})
	log := &Log{}
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Client{Jar: jar, Transport: &Guard{Target: target.URL + "/", Log: log}}
	send := func(ctx context.Context, method, address string) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, method, address, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer the-token")
		req.Header.Set("Proxy-Authorization", "Basic the-proxy's")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}

	send(context.Background(), http.MethodPost, target.URL+"/api/events") // a creation: its Location names the other origin
	send(context.Background(), http.MethodGet, other.URL+"/api/events/1")
	send(Via(context.Background(), `the "self" link in the answer to GET /api/events`), http.MethodGet, other.URL+"/api/events/1")
	send(context.Background(), http.MethodGet, target.URL+"/moved") // a redirect there, which the client follows

	if n, got := target.seen(); n != 2 || !slices.Contains(got, "Authorization: Bearer the-token") || !slices.Contains(got, "Cookie: session=target-session") {
		t.Errorf("the target got %d requests, with %q: want its credentials", n, got)
	}
	n, got := other.seen()
	if n != 3 {
		t.Errorf("the other origin got %d requests, want 3", n)
	}
	for _, h := range got {
		if !strings.HasPrefix(h, "Proxy-Authorization:") {
			t.Errorf("the other origin was sent %q", h)
		}
	}
	foreign := log.Foreign()
	// httptest's address is scheme, host and port, as an origin is written.
	if len(foreign) != 1 || foreign[0].Origin != other.URL || foreign[0].Requests != 3 {
		t.Fatalf("the log says %+v, want the other origin with 3 requests", foreign)
	}
	for _, want := range []string{"named by the Location of POST /api/events", `the "self" link in the answer to GET /api/events`, "a redirect (307) of GET /moved"} {
		if !slices.Contains(foreign[0].Via, want) {
			t.Errorf("the log does not say %q led there: %q", want, foreign[0].Via)
		}
	}
}

// TestAGuardWithoutATargetSendsCredentialsNowhere: a request it cannot
// tell the origin of goes without credentials.
func TestAGuardWithoutATargetSendsCredentialsNowhere(t *testing.T) {
	l := listen(t, nil)
	req, err := http.NewRequest(http.MethodGet, l.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer the-token")
	g := &Guard{}
	if !g.Withholds(req) {
		t.Error("Withholds = false without a target")
	}
	resp, err := (&http.Client{Transport: g}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if _, got := l.seen(); len(got) != 0 {
		t.Errorf("sent %q", got)
	}
	if req.Header.Get("Authorization") == "" {
		t.Error("the caller's request lost its header: a RoundTripper must not change it")
	}
}
