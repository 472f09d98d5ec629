package repro

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"eventsvc/internal/redact"
)

// needShells skips t without curl, sh and bash, or fails it in CI, where
// .ci/run installs them.
func needShells(t *testing.T) {
	t.Helper()
	for _, tool := range []string{"curl", "sh", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("no %s: .ci/run installs it for this check", tool)
			}
			t.Skipf("no %s on this machine: this check runs in CI", tool)
		}
	}
}

// hostile are texts that each run `touch marker` where a shell reads
// them as anything but data: in single quotes, in double quotes, unquoted,
// after a comment. Each is balanced for one of these, so that the others
// are not a syntax error that stops the shell before it runs anything.
// The last are globs, which curl would expand in an address into several
// requests.
func hostile(marker string) map[string]string {
	touch := "touch${IFS}" + marker
	return map[string]string{
		"single quotes": "'$(" + touch + ")'",
		"double quotes": `";` + touch + `;"`,
		"unquoted":      "$(" + touch + ")",
		"backquotes":    "`" + touch + "`",
		"semicolons":    "';" + touch + ";'",
		"lines":         "\n" + touch + "\n#",
		"curl's globs":  "{a,b}[1-2]",
	}
}

// hostileTarget answers a script's requests as a target that wants the
// shell: tokens, a Location, a header and bodies holding hostile text,
// answers with escape sequences. It keeps the bodies of the PUTs it gets.
type hostileTarget struct {
	evil string
	mu   sync.Mutex
	puts [][]byte
}

// answerTail is what every answer of the hostile target ends with: escape
// sequences that would set a terminal's title, clear it and colour it (C1
// controls too, as bytes and as UTF-8), a NUL and a carriage return.
const answerTail = "\x1b]0;owned\x07\x1b[2J\x1b[31m red \x9b31m\u009b31m\x00\r\n"

// inHeader is v as a header value may hold it: on one line.
func inHeader(v string) string { return strings.ReplaceAll(v, "\n", "") }

func (h *hostileTarget) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Evil", inHeader(h.evil))
	switch {
	case r.URL.Path == "/oauth/token":
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]string{"access_token": "at-" + inHeader(h.evil), "refresh_token": "rt-" + inHeader(h.evil), "token_type": "bearer"})
	case r.Method == http.MethodPost:
		w.Header().Set("Location", "http://"+r.Host+"/api/events/27"+inHeader(h.evil))
		w.WriteHeader(http.StatusCreated)
	case r.Method == http.MethodPut:
		h.mu.Lock()
		h.puts = append(h.puts, body)
		h.mu.Unlock()
		w.Write([]byte(h.evil + answerTail))
	default:
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("\n" + h.evil + "\n" + answerTail))
	}
}

// TestAScriptRunsNothingATargetChose: the script of a run against a
// target whose tokens, Location, header values and bodies hold shell
// syntax, and whose answers hold escape sequences, run by sh and by bash
// against the same target, runs none of it, prints none of the escape
// sequences, sends a body with a NUL byte for byte, and ends with the
// failing request. The scenario's title holds the same text.
func TestAScriptRunsNothingATargetChose(t *testing.T) {
	needShells(t)
	for name := range hostile("") {
		t.Run(name, func(t *testing.T) {
			marker := filepath.Join(t.TempDir(), "pwned")
			evil := hostile(marker)[name]
			target := &hostileTarget{evil: evil}
			srv := httptest.NewServer(target)
			defer srv.Close()
			log, address, put := runAgainst(t, srv.URL, evil)
			script := Script{
				Title: "\"A check " + evil + "\" (x.feature:3)", Base: srv.URL,
				Vars:     []Var{{"s3cr3t!pw", "${CONFORMANCE_PASSWORD}"}, {"ann@example.org", "${CONFORMANCE_USERNAME}"}, {"myApp", "${CONFORMANCE_CLIENT_ID}"}, {"app-secret", "${CONFORMANCE_CLIENT_SECRET}"}},
				ClientID: "myApp", ClientSecret: "app-secret",
				Log: log, LastFails: true,
			}.String()
			file := filepath.Join(t.TempDir(), "repro.sh")
			if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
				t.Fatal(err)
			}
			if strings.ContainsRune(script, 0) || strings.Contains(script, "\x1b") {
				t.Errorf("the script holds a NUL or an escape sequence:\n%q", script)
			}
			for _, shell := range []string{"sh", "bash"} {
				target.mu.Lock()
				target.puts = nil
				target.mu.Unlock()
				cmd := exec.Command(shell, file)
				cmd.Env = append(os.Environ(), "BASE_URL="+srv.URL, "CONFORMANCE_USERNAME=ann@example.org", "CONFORMANCE_PASSWORD=s3cr3t!pw",
					"CONFORMANCE_CLIENT_ID=myApp", "CONFORMANCE_CLIENT_SECRET=app-secret")
				var stdout, stderr bytes.Buffer
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				if _, serr := os.Stat(marker); serr == nil {
					t.Fatalf("%s %s ran a command the target chose\n%s\n%s", shell, file, script, stdout.String())
				}
				if err != nil {
					t.Fatalf("%s %s: %v\n%s\n%s", shell, file, err, stderr.String(), script)
				}
				out := stdout.String()
				// A byte 0x9b that is not UTF-8 is no control to a UTF-8
				// terminal, which shows it as such; encoded, it is CSI.
				if strings.Contains(out, "\x1b") || strings.Contains(out, "\u009b") || strings.ContainsAny(out, "\x00\x07") {
					t.Errorf("%s: the script's output passes escape sequences on to the terminal:\n%q", shell, out)
				}
				target.mu.Lock()
				puts := target.puts
				target.mu.Unlock()
				if len(puts) != 1 || !bytes.Equal(puts[0], put) {
					t.Errorf("%s: the script sent the update's body as %q, want %q", shell, puts, put)
				}
				last := out[strings.LastIndex(out, "== "):]
				if !strings.HasPrefix(last, "== 5. GET "+address+" (the failing request)\n") || !strings.Contains(last, "404 Not Found") {
					t.Errorf("%s: the script's last request is not the read of %s that failed:\n%s", shell, address, last)
				}
			}
		})
	}
}

// runAgainst is a run against the hostile target at base: a password
// grant, a refresh, a creation, an update of what was created whose body
// holds a NUL, and a read of it that fails. It returns its log, the
// created event's address and the update's body.
func runAgainst(t *testing.T, base, evil string) (log []Exchange, address string, put []byte) {
	t.Helper()
	r := redact.New("s3cr3t!pw")
	send := func(method, address, contentType string, body []byte, header ...string) *http.Response {
		t.Helper()
		req, err := http.NewRequest(method, address, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		log = append(log, Record(r, req, body, resp, b))
		return resp
	}
	form, basic := "application/x-www-form-urlencoded", "Basic bXlBcHA6YXBwLXNlY3JldA==" // myApp:app-secret
	token := "at-" + inHeader(evil)
	send("POST", base+"/oauth/token", form, []byte("grant_type=password&username=ann%40example.org&password=s3cr3t%21pw"), "Authorization", basic)
	send("POST", base+"/oauth/token", form, []byte("grant_type=refresh_token&token="+url.QueryEscape("rt-"+inHeader(evil))), "Authorization", basic)
	name, _ := json.Marshal(evil)
	created := send("POST", base+"/api/events", "application/json", []byte(`{"name":`+string(name)+`}`), "Authorization", "Bearer "+token)
	address = created.Header.Get("Location")
	put = append([]byte("a\x00b\x1b[2J\r\n"+evil+"\n"), 0xff, 0xc2, 0x9b, '\'')
	send("PUT", address, "application/octet-stream", put, "Authorization", "Bearer "+token, "X-Note", inHeader(evil))
	send("GET", address, "", nil, "Authorization", "Bearer "+token)
	return log, address, put
}

// TestAScriptMasksItsValuesBeforeQuotingThem: a secret the run learned
// (a token the target chose) is masked in the values the script writes,
// before they are quoted: masked in the script's text, the backslash that
// ends this one would leave the `$` after it live.
func TestAScriptMasksItsValuesBeforeQuotingThem(t *testing.T) {
	needShells(t)
	marker := filepath.Join(t.TempDir(), "pwned")
	secret := `tok-abcdef\`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer srv.Close()
	r := redact.New(secret)
	req := httptest.NewRequest("POST", srv.URL+"/api/events", nil)
	req.Header.Set("Content-Type", "text/plain")
	script := Script{
		Title: "a check", Base: srv.URL, Redactor: r,
		Log: []Exchange{Record(r, req, []byte(secret+"$(touch "+marker+")"), nil, nil)},
	}.String()
	if strings.Contains(script, "tok-abcdef") {
		t.Errorf("the script holds the secret:\n%s", script)
	}
	file := filepath.Join(t.TempDir(), "repro.sh")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("sh", file)
	cmd.Env = append(os.Environ(), "BASE_URL="+srv.URL)
	out, err := cmd.CombinedOutput()
	if _, serr := os.Stat(marker); serr == nil {
		t.Fatalf("sh %s ran a command the target chose:\n%s", file, script)
	}
	if err != nil {
		t.Fatalf("sh %s: %v\n%s", file, err, out)
	}
}

// TestAScriptSaysWhichRequestFails: the heading of the last request says
// that it is the failing one when it is, and no heading says so when the
// failure is about none of them.
func TestAScriptSaysWhichRequestFails(t *testing.T) {
	r := redact.New()
	var log []Exchange
	for _, path := range []string{"/api", "/api/events"} {
		log = append(log, Record(r, httptest.NewRequest("GET", "http://target.example"+path, nil), nil, nil, nil))
	}
	for _, fails := range []bool{true, false} {
		got := Script{Title: "a check", Base: "http://target.example", Log: log, LastFails: fails}.String()
		marked := strings.Count(got, "(the failing request)")
		if fails && (marked != 1 || !strings.Contains(got, `say "== 2. GET ${BASE_URL}/api/events (the failing request)"`) || !strings.Contains(got, "the failing one comes last")) {
			t.Errorf("the script does not say that its last request fails:\n%s", got)
		}
		if !fails && (marked != 0 || strings.Contains(got, "the failing one comes last")) {
			t.Errorf("the script says a request fails, when the failure is about none:\n%s", got)
		}
	}
}

// TestAShortCredentialIsReplacedOnlyWhereItIsTheWholeValue: the demo
// password "user" and secret "pass" are words inside others ("username",
// "password"); a script reads them from their variables where a value is
// them, and leaves the other words as they are.
func TestAShortCredentialIsReplacedOnlyWhereItIsTheWholeValue(t *testing.T) {
	form := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}, "Authorization": {"Basic bXlBcHA6cGFzcw=="}}
	log := []Exchange{{Method: "POST", URL: "http://target.example/oauth/token", Header: form,
		Body: []byte("grant_type=password&username=user%40email.com&password=user")}}
	got := Script{Title: "a token request", Base: "http://target.example", ClientID: "myApp", ClientSecret: "pass", Log: log,
		Vars: []Var{{Value: "pass", Name: "${CONFORMANCE_CLIENT_SECRET}"}, {Value: "user", Name: "${CONFORMANCE_PASSWORD}"},
			{Value: "user@email.com", Name: "${CONFORMANCE_USERNAME}"}, {Value: "myApp", Name: "${CONFORMANCE_CLIENT_ID}"}}}.String()
	want := `--data-urlencode "grant_type=password" --data-urlencode "username=${CONFORMANCE_USERNAME}" --data-urlencode "password=${CONFORMANCE_PASSWORD}"`
	if !strings.Contains(got, want) {
		t.Errorf("the script does not send the form as\n  %s\n%s", want, got)
	}
	if want := `"$(formenc "${CONFORMANCE_CLIENT_SECRET}")"`; !strings.Contains(got, want) {
		t.Errorf("the script does not read the client secret from its variable (%s):\n%s", want, got)
	}
}

// TestAScriptSendsThePathAsItWasSent: a request to a spelling of an
// address (a dot segment, a doubled slash, a letter percent-encoded) is
// replayed to that spelling, not to the address curl would make of it.
func TestAScriptSendsThePathAsItWasSent(t *testing.T) {
	needShells(t)
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.RequestURI)
		mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
	}))
	defer srv.Close()
	paths := []string{"/api/./events", "/api/x/../events", "/api//events", "/%61pi/events"}
	var log []Exchange
	for _, p := range paths {
		u, err := url.Parse(srv.URL + p)
		if err != nil {
			t.Fatal(err)
		}
		req := &http.Request{Method: "POST", URL: u, Header: http.Header{}}
		log = append(log, Record(redact.New(), req, nil, nil, nil))
	}
	script := filepath.Join(t.TempDir(), "replay.sh")
	if err := os.WriteFile(script, []byte(Script{Title: "spellings", Base: srv.URL, Log: log}.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("sh", script).CombinedOutput(); err != nil {
		t.Fatalf("the script failed: %v\n%s", err, out)
	}
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, " ") != strings.Join(paths, " ") {
		t.Errorf("the script sent %q, want %q", got, paths)
	}
}

// TestAFindingsScriptAsksForTheTokensOfItsAccountsFirst: the script of
// a finding the registry made (ScriptOf) sends its requests to where the
// first of them went, asks first for the tokens its log sends that an
// account of the run holds, with that account's variables, and for no
// other, and says its last request is the failing one.
func TestAFindingsScriptAsksForTheTokensOfItsAccountsFirst(t *testing.T) {
	bearer := func(tok string) http.Header { return http.Header{"Authorization": {"Bearer " + tok}} }
	log := []Exchange{
		{Method: "GET", URL: "http://other.example:8080/api/events", Header: bearer("tok-of-the-user"), Status: 200},
		{Method: "GET", URL: "http://other.example:8080/api/events/1", Header: bearer("tok-of-the-other"), Status: 200},
		{Method: "GET", URL: "http://other.example:8080/api/events/2", Header: bearer("tok-of-a-stranger"), Status: 404},
	}
	holders := map[string]string{"tok-of-the-user": "user@email.com", "tok-of-the-other": "admin@email.com", "tok-of-a-stranger": "someone@else"}
	got := ScriptOf(Script{Title: "a finding", Base: "http://target.example", ClientID: "myApp", ClientSecret: "pass", Log: log},
		"user@email.com", "admin@email.com", holders)
	for _, want := range []string{
		`BASE_URL='http://other.example:8080'`,
		`"password=${CONFORMANCE_OTHER_PASSWORD}"`, `ACCESS_OTHER=$(field access_token "$out")`,
		`"password=${CONFORMANCE_PASSWORD}"`, `ACCESS_USER=$(field access_token "$out")`,
		"(the failing request)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the script does not hold %s:\n%s", want, got)
		}
	}
	if other, user := strings.Index(got, "ACCESS_OTHER=$("), strings.Index(got, "ACCESS_USER=$("); other > user {
		t.Errorf("the tokens are not asked for in the order of their names:\n%s", got)
	}
	if strings.Contains(got, "tok-of-the-user") || strings.Contains(got, "tok-of-the-other") || !strings.Contains(got, "tok-of-a-stranger") {
		t.Errorf("the script does not send the accounts' tokens it asked for, and the other as it is:\n%s", got)
	}
	if empty := ScriptOf(Script{Title: "nothing", Base: "http://target.example"}, "u", "o", nil); !strings.Contains(empty, `BASE_URL='http://target.example'`) {
		t.Errorf("a script of no exchange is not for the target:\n%s", empty)
	}
}

// TestAScriptWritesAValueMadeFromATokenFromItsVariable: a near-miss of
// the user's access token is written from the variable the script asks
// the token into, never as the text it is, and the script asks for the
// token although no request sends it as it is.
func TestAScriptWritesAValueMadeFromATokenFromItsVariable(t *testing.T) {
	token := "tokOfTheUser-1234"
	swapped := "TOKoFtHEuSER-1234"
	log := []Exchange{{Method: "POST", URL: "http://target.example/api/events", Header: http.Header{"Authorization": {"Bearer " + swapped}}, Body: []byte(`{}`), Status: 201}}
	got := Script{Title: "a near-miss", Base: "http://target.example", ClientID: "myApp", ClientSecret: "pass", Log: log,
		Shared:  []Shared{{Token: token, Name: "ACCESS_USER", UserVar: "CONFORMANCE_USERNAME", PassVar: "CONFORMANCE_PASSWORD", What: "user's"}},
		Derived: []Derived{{Value: swapped, Of: token, Written: func(name string) string { return `$(printf %s "${` + name + `}" | tr a-zA-Z A-Za-z)` }}},
	}.String()
	if !strings.Contains(got, `ACCESS_USER=$(field access_token "$out")`) || !strings.Contains(got, `Bearer $(printf %s "${ACCESS_USER}" | tr a-zA-Z A-Za-z)`) {
		t.Errorf("the script does not ask for the token and write the near-miss from it:\n%s", got)
	}
	if strings.Contains(got, swapped) || strings.Contains(got, token) {
		t.Errorf("the script holds the token or its near-miss as text:\n%s", got)
	}
}
