package suite

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
	"eventsvc/features"
)

// flawedLauncher starts the reference server as inprocess.Launcher does, after
// changing the configuration a scenario asks for the way a server that
// mishandles its configuration would take it.
type flawedLauncher struct {
	inprocess.Launcher
	flaw func(*target.ServerConfig)
}

func (l flawedLauncher) Launch(cfg target.ServerConfig) (target.Instance, error) {
	// The scenario's own entries stay as they are.
	cfg.Accounts, cfg.Clients = slices.Clone(cfg.Accounts), slices.Clone(cfg.Clients)
	for i := range cfg.Accounts {
		cfg.Accounts[i].Roles = slices.Clone(cfg.Accounts[i].Roles)
	}
	for i := range cfg.Clients {
		cfg.Clients[i].GrantTypes = slices.Clone(cfg.Clients[i].GrantTypes)
	}
	l.flaw(&cfg)
	return l.Launcher.Launch(cfg)
}

// eachSecret applies f to every configured plain and stored password and
// client secret.
func eachSecret(f func(plain, stored string) (string, string)) func(*target.ServerConfig) {
	return func(cfg *target.ServerConfig) {
		for i := range cfg.Accounts {
			a := &cfg.Accounts[i]
			a.Password, a.Stored = f(a.Password, a.Stored)
		}
		for i := range cfg.Clients {
			c := &cfg.Clients[i]
			c.Secret, c.Stored = f(c.Secret, c.Stored)
		}
	}
}

// localBreakages break the reference server's handling of its
// configuration, one way at a time, for the rules only the in-process
// server can check.
var localBreakages = []struct {
	name  string
	rules []string
	flaw  func(*target.ServerConfig)
}{
	{"a stored value without a known marker is taken as the secret itself", []string{"ACC-3", "CLI-2"}, eachSecret(func(plain, stored string) (string, string) {
		if stored != "" && !strings.HasPrefix(stored, "{bcrypt}$2") {
			return stored, ""
		}
		return plain, stored
	})},
	{"what eventsvc hash-password prints does not verify the secret", []string{"ACC-3", "CLI-2"}, eachSecret(func(plain, stored string) (string, string) {
		if stored == "" {
			plain += "-not-what-was-hashed"
		}
		return plain, stored
	})},
	{"a second account with the same email is taken, the first one kept", []string{"ACC-2"}, func(cfg *target.ServerConfig) {
		var kept []target.AccountConfig
		for _, a := range cfg.Accounts {
			if !slices.ContainsFunc(kept, func(k target.AccountConfig) bool { return strings.EqualFold(k.Email, a.Email) }) {
				kept = append(kept, a)
			}
		}
		cfg.Accounts = kept
	}},
	{"an unknown role is dropped instead of refused", []string{"ACC-4"}, func(cfg *target.ServerConfig) {
		for i := range cfg.Accounts {
			cfg.Accounts[i].Roles = slices.DeleteFunc(cfg.Accounts[i].Roles, func(r string) bool { return r != "ADMIN" && r != "USER" })
			if len(cfg.Accounts[i].Roles) == 0 {
				cfg.Accounts[i].Roles = []string{"USER"}
			}
		}
	}},
	{"an unknown grant type is dropped instead of refused", []string{"CLI-3"}, func(cfg *target.ServerConfig) {
		for i := range cfg.Clients {
			cfg.Clients[i].GrantTypes = slices.DeleteFunc(cfg.Clients[i].GrantTypes, func(g string) bool { return g != "password" && g != "refresh_token" })
		}
	}},
	{"every client is taken as registered for resource event", []string{"CLI-7"}, func(cfg *target.ServerConfig) {
		for i := range cfg.Clients {
			cfg.Clients[i].ResourceIDs = []string{"event"}
		}
	}},
}

// TestSuiteCatchesBreakagesOfTheConfiguration requires the @local scenarios
// of each rule a breakage names to fail against it.
func TestSuiteCatchesBreakagesOfTheConfiguration(t *testing.T) {
	for _, b := range localBreakages {
		for _, rule := range b.rules {
			t.Run(rule+": "+b.name, func(t *testing.T) {
				t.Parallel()
				creds := target.DemoCredentials
				var out bytes.Buffer
				rep, err := Run(Options{
					Target: target.Target{Credentials: creds, RunID: "breakage", Launcher: flawedLauncher{inprocess.Launcher{Credentials: creds}, b.flaw}},
					Tags:   "@" + rule + " && @local",
					Output: &out,
				})
				if !errors.Is(err, ErrFailed) {
					t.Fatalf("no @local scenario of %s caught the flaw (Run returned %v)%s", rule, err, failedSteps(out.String()))
				}
				t.Logf("caught by %s:\n  %s", rule, strings.Join(failures(rep), "\n  "))
			})
		}
	}
}

// leakyProxy puts a reference server behind a deployment whose parts read
// a request two ways: the part that checks tokens one way, the part that
// routes or authenticates another. With fold, a write whose path fold
// changes is one the token check did not guard, and that the router took
// to the path fold gives: it goes there as the user (the family of Spring
// Security's CVE-2016-5007 and CVE-2023-34034); with refuse, it is
// answered 401 all the same, after it was carried out. With place, a request
// without an Authorization header is authenticated by the token place
// finds elsewhere; with cookie, every answer sets a cookie of that name,
// which place may read, or with tokensOnly, every answer of the token
// endpoint. Everything else goes to the reference server as it
// came.
type leakyProxy struct {
	fold       func(path string) string
	refuse     bool
	place      func(r *http.Request, body []byte) string
	cookie     string
	tokensOnly bool

	backend string
	once    sync.Once
	token   string // the user's, for the writes the check let through
	err     error
}

func (p *leakyProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	uri, header, leaked := r.RequestURI, r.Header.Clone(), false
	if p.fold != nil && r.Method != http.MethodGet {
		rawPath, query, hasQuery := strings.Cut(uri, "?")
		if folded := p.fold(rawPath); folded != rawPath {
			token, err := p.userToken()
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadGateway)
				return
			}
			uri = folded
			if hasQuery {
				uri += "?" + query
			}
			header.Set("Authorization", "Bearer "+token)
			leaked = true
		}
	}
	if p.place != nil && header.Get("Authorization") == "" {
		if token := p.place(r, body); token != "" {
			header.Set("Authorization", "Bearer "+token)
		}
	}
	req, err := http.NewRequest(r.Method, p.backend+uri, bytes.NewReader(body))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	req.Header, req.Host = header, r.Host // the server's links name the proxy
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	if leaked && p.refuse {
		http.Error(w, "a valid bearer token is needed", http.StatusUnauthorized)
		return
	}
	for k, v := range resp.Header {
		w.Header()[k] = v
	}
	if p.cookie != "" && (!p.tokensOnly || r.URL.Path == "/oauth/token") {
		w.Header().Add("Set-Cookie", p.cookie+"=session-of-the-proxy; Path=/; HttpOnly")
	}
	w.WriteHeader(resp.StatusCode)
	_, _ = io.Copy(w, resp.Body)
}

// userToken asks the reference server for the user's access token, once.
func (p *leakyProxy) userToken() (string, error) {
	p.once.Do(func() {
		c := target.DemoCredentials
		form := url.Values{"grant_type": {"password"}, "username": {c.Username}, "password": {c.Password}}
		req, err := http.NewRequest(http.MethodPost, p.backend+"/oauth/token", strings.NewReader(form.Encode()))
		if err != nil {
			p.err = err
			return
		}
		req.SetBasicAuth(c.ClientID, c.ClientSecret)
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			p.err = err
			return
		}
		defer resp.Body.Close()
		var answer struct {
			AccessToken string `json:"access_token"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&answer); err != nil || answer.AccessToken == "" {
			p.err = fmt.Errorf("no token for the user (status %d): %v", resp.StatusCode, err)
		}
		p.token = answer.AccessToken
	})
	return p.token, p.err
}

// The ways a router folds a path that the token check reads as written.

func trimSlash(p string) string { return strings.TrimSuffix(p, "/") }

var slashes = regexp.MustCompile(`//+`)

func mergeSlashes(p string) string { return slashes.ReplaceAllString(p, "/") }

var encodedLetter = regexp.MustCompile(`%[46][1-9A-Fa-f]|%[57][0-9Aa]`)

func decodeLetters(p string) string {
	return encodedLetter.ReplaceAllStringFunc(p, func(e string) string {
		b, _ := strconv.ParseUint(e[1:], 16, 8)
		return string(rune(b))
	})
}

func dropDot(p string) string { return strings.ReplaceAll(p, "/./", "/") }

var dotDot = regexp.MustCompile(`/[^/]+/\.\.(/|$)`)

func resolveDotDot(p string) string { return dotDot.ReplaceAllString(p, "/") }

// The places other than Authorization a token is taken from.

func queryToken(r *http.Request, _ []byte) string { return r.URL.Query().Get("access_token") }

func formToken(r *http.Request, body []byte) string {
	if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt != "application/x-www-form-urlencoded" {
		return ""
	}
	form, _ := url.ParseQuery(string(body))
	return form.Get("access_token")
}

func cookieToken(name string) func(*http.Request, []byte) string {
	return func(r *http.Request, _ []byte) string {
		c, err := r.Cookie(name)
		if err != nil {
			return ""
		}
		return c.Value
	}
}

// TestSpellingsAndTokenPlacesCatchTheirBreakages runs the scenarios of
// AUTH-3 and AUTH-4 on the spellings of an address, and those of SVC-4 on
// the places of a token, against a reference server behind a proxy broken
// one way at a time: the scenarios of that way fail, blaming their rule,
// and every other scenario of their feature passes. Behind a proxy that
// breaks nothing, every one passes.
func TestSpellingsAndTokenPlacesCatchTheirBreakages(t *testing.T) {
	spellings, service := "spellings.feature", "service.feature"
	for _, tt := range []struct {
		name    string
		proxy   *leakyProxy
		feature string
		caught  string // matches the names of the scenarios that fail
		rule    string
	}{
		{"a proxy that breaks nothing, spellings", &leakyProxy{}, spellings, "", ""},
		{"a proxy that breaks nothing, places of a token", &leakyProxy{}, service, "", ""},
		{"a trailing slash folded", &leakyProxy{fold: trimSlash}, spellings, "written with a trailing slash", "AUTH-3"},
		{"doubled slashes merged", &leakyProxy{fold: mergeSlashes}, spellings, "written with a doubled slash", "AUTH-3"},
		{"percent-encoded letters decoded", &leakyProxy{fold: decodeLetters}, spellings, "written with a letter percent-encoded", "AUTH-3"},
		{`"." segments dropped`, &leakyProxy{fold: dropDot}, spellings, `written with a "." segment`, "AUTH-3"},
		{`".." segments resolved`, &leakyProxy{fold: resolveDotDot}, spellings, `written with a ".." segment`, "AUTH-3"},
		{"case folded", &leakyProxy{fold: strings.ToLower}, spellings, "written in upper case", "AUTH-4"},
		{"a trailing slash folded, answered 401 once carried out", &leakyProxy{fold: trimSlash, refuse: true}, spellings, "written with a trailing slash", "AUTH-3"},
		{"case folded, answered 401 once carried out", &leakyProxy{fold: strings.ToLower, refuse: true}, spellings, "written in upper case", "AUTH-4"},
		{"a token in the access_token query parameter", &leakyProxy{place: queryToken}, service, `as the query parameter "access_token"`, "SVC-4"},
		{"a token in the access_token form field", &leakyProxy{place: formToken}, service, "in a form field", "SVC-4"},
		{"a token in the access_token cookie", &leakyProxy{place: cookieToken("access_token")}, service, `in the cookie "access_token"`, "SVC-4"},
		{"a token in the token cookie", &leakyProxy{place: cookieToken("token")}, service, `in the cookie "token"`, "SVC-4"},
		{"a token in the cookie the target set", &leakyProxy{place: cookieToken("sid"), cookie: "sid"}, service, `in the cookie|No answer sets a cookie`, "SVC-4"},
		// The scenarios that put a token in a cookie take the run's
		// tokens, asked for in other scenarios: the names of the cookies
		// those answers set go with them.
		{"a token in the cookie the token endpoint set", &leakyProxy{place: cookieToken("sid"), cookie: "sid", tokensOnly: true}, service, `in the cookie|No answer sets a cookie`, "SVC-4"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := tt.proxy
			p.backend = startReference(t, target.ServerConfig{}, nil)
			srv := httptest.NewServer(p)
			t.Cleanup(srv.Close)
			rep, out := runFeature(t, srv.URL, tt.feature, "@AUTH-3,@AUTH-4,@SVC-4")
			var caught *regexp.Regexp
			if tt.caught != "" {
				caught = regexp.MustCompile(tt.caught)
			}
			n := 0
			for _, s := range rep.Ran() {
				if s.File == audit.File {
					continue // the audit's findings: the rules below are theirs too
				}
				want := report.Passed
				if caught != nil && caught.MatchString(s.Name) {
					want = report.Failed
					n++
				}
				if s.Verdict != want {
					t.Errorf("%s: %s, want %s", s.Name, s.Verdict, want)
				}
			}
			if caught != nil && n == 0 {
				t.Errorf("no scenario that ran is named %q", tt.caught)
			}
			for _, r := range rep.Rules {
				if r.Verdict == report.Failed && r.ID != tt.rule {
					t.Errorf("the run blames %s, want %q only", r.ID, tt.rule)
				}
			}
			if t.Failed() {
				t.Logf("%s", failedSteps(out))
			}
		})
	}
}

// runFeature runs the scenarios of one feature file that tags selects
// against base.
func runFeature(t *testing.T, base, file, tags string) (*report.Report, string) {
	t.Helper()
	data, err := fs.ReadFile(features.FS, file)
	if err != nil {
		t.Fatal(err)
	}
	tgt := remote(base)
	tgt.RunID, tgt.Timeout = "spellings", 5*time.Second
	var out bytes.Buffer
	rep, err := Run(Options{
		Target: tgt, Tags: tags, Concurrency: 4, Output: &out,
		Features: fstest.MapFS{file: {Data: data}},
	})
	if rep == nil || len(rep.Scenarios) == 0 {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	return rep, out.String()
}
