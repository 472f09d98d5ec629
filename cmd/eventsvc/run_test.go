package main

import (
	"bytes"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"eventsvc/server/config"
	"eventsvc/server/secret"
)

func TestHashPasswordPrintsAStoredFormThatChecks(t *testing.T) {
	var out, errs bytes.Buffer
	code := run([]string{"hash-password", "-cost", "4"}, strings.NewReader("s3cret\n"), &out, &errs, nil)
	if code != exitOK {
		t.Fatalf("exit %d, stderr %q", code, errs.String())
	}
	stored := strings.TrimSpace(out.String())
	if !strings.HasPrefix(stored, "{bcrypt}") {
		t.Fatalf("output %q has no {bcrypt} marker", stored)
	}
	if err := secret.Check(stored, "s3cret"); err != nil {
		t.Fatalf("Check(output, secret) = %v", err)
	}
	if strings.Contains(out.String()+errs.String(), "s3cret") {
		t.Fatal("the secret is echoed")
	}
}

func TestHashPasswordRefusesEmptyInputAndArguments(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"hash-password"}, strings.NewReader("\n"), &out, &errs, nil); code != exitError {
		t.Fatalf("empty input: exit %d, want %d", code, exitError)
	}
	if !strings.Contains(errs.String(), "standard input is empty") {
		t.Fatalf("stderr %q does not say what was wrong", errs.String())
	}
	if code := run([]string{"hash-password", "s3cret"}, strings.NewReader(""), &out, &errs, nil); code != exitUsage {
		t.Fatalf("argument: exit %d, want %d", code, exitUsage)
	}
}

func TestServeRefusesABadConfigurationNamingTheEntry(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.json")
	stored, err := secret.Hash([]byte("pw"), 4)
	if err != nil {
		t.Fatal(err)
	}
	bad := `{"clients":[{"clientId":"app","clientSecret":"` + stored + `","authorizedGrantTypes":["password"],"scopes":["read"],"resourceIds":["event"]}],
	"accounts":[{"email":"a@example.com","password":"` + stored + `","roles":["USER"]},
	            {"email":"a@example.com","password":"` + stored + `","roles":["USER"]}]}`
	if err := os.WriteFile(path, []byte(bad), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errs bytes.Buffer
	code := run([]string{"serve", "-addr", "127.0.0.1:0", "-config", path}, nil, &out, &errs, nil)
	if code != exitError {
		t.Fatalf("exit %d, want %d", code, exitError)
	}
	for _, want := range []string{"cannot start", "duplicate email", "a@example.com"} {
		if !strings.Contains(errs.String(), want) {
			t.Errorf("stderr %q does not mention %q", errs.String(), want)
		}
	}
	if strings.Contains(errs.String(), "$2a$") {
		t.Errorf("stderr shows a hash: %q", errs.String())
	}
}

func TestServeUnknownCommandAndFlag(t *testing.T) {
	var out, errs bytes.Buffer
	if code := run([]string{"serv"}, nil, &out, &errs, nil); code != exitUsage {
		t.Fatalf("unknown command: exit %d", code)
	}
	if code := run([]string{"serve", "-port", "1"}, nil, &out, &errs, nil); code != exitUsage {
		t.Fatalf("unknown flag: exit %d", code)
	}
}

func TestServeStartsOnDemoCredentialsAndStopsOnSignal(t *testing.T) {
	s := launchServe(t)
	if !strings.Contains(s.out.String(), config.DemoNotice) {
		t.Errorf("the banner does not list the demo credentials: %q", s.out.String())
	}
	resp, err := http.Get(s.base + "/api")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /api = %d", resp.StatusCode)
	}
	s.stopOK(t)
	if _, err := net.DialTimeout("tcp", strings.TrimPrefix(s.base, "http://"), time.Second); err == nil {
		t.Fatal("the port still accepts connections after shutdown")
	}
}

// runSafely is run, with a panic turned into a test failure.
func runSafely(t *testing.T, args []string) (code int, stderr string) {
	t.Helper()
	var out, errs bytes.Buffer
	stop := make(chan os.Signal, 1)
	stop <- syscall.SIGTERM // a server that starts stops at once
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Errorf("%q panicked: %v", args, p)
			}
		}()
		code = run(args, nil, &out, &errs, stop)
	}()
	return code, errs.String()
}

// refusal is a command line serve must refuse: its exit code, and what
// its standard error says.
type refusal struct {
	args []string
	code int
	says string
}

// expectRefused runs `eventsvc serve -addr 127.0.0.1:0 ARGS…` with the args
// of each refusal, and fails the test unless it exits with the refusal's
// code and its standard error says what it must; check, unless nil, looks
// at each standard error further.
func expectRefused(t *testing.T, refusals []refusal, check func(r refusal, stderr string)) {
	t.Helper()
	for _, r := range refusals {
		code, stderr := runSafely(t, append([]string{"serve", "-addr", "127.0.0.1:0"}, r.args...))
		if code != r.code || !strings.Contains(stderr, r.says) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d saying %q", r.args, code, stderr, r.code, r.says)
		}
		if check != nil {
			check(r, stderr)
		}
	}
}

// TestServeRefusesEveryBadFlagValueBeforeListening: every flag value out of
// range stops serve with a message naming the flag, never a panic, and
// before it listens.
func TestServeRefusesEveryBadFlagValueBeforeListening(t *testing.T) {
	for _, tt := range []refusal{
		{[]string{"-addr", "127.0.0.1:99999"}, exitError, "cannot start"},
		{[]string{"-config", filepath.Join(t.TempDir(), "missing.json")}, exitError, "cannot start"},
		{[]string{"-demo-events", "-1"}, exitUsage, "-demo-events"},
		{[]string{"-demo-events", "1000001"}, exitUsage, "-demo-events"},
		{[]string{"-login-failures", "-1"}, exitUsage, "-login-failures"},
		{[]string{"-login-window", "0s"}, exitUsage, "-login-window"},
		{[]string{"-login-window", "25h"}, exitUsage, "-login-window"},
		{[]string{"-login-lockout", "-1s"}, exitUsage, "-login-lockout"},
		{[]string{"-login-lockout", "2562047h"}, exitUsage, "-login-lockout"},
		{[]string{"-login-keys", "0"}, exitUsage, "-login-keys"},
		{[]string{"-max-events-per-user", "-1"}, exitUsage, "-max-events-per-user"},
		{[]string{"-token-rate", "-1"}, exitUsage, "-token-rate"},
		{[]string{"-token-rate", "NaN"}, exitUsage, "-token-rate"},
		{[]string{"-token-rate", "+Inf"}, exitUsage, "-token-rate"},
		{[]string{"-token-burst", "0"}, exitUsage, "-token-burst"},
		{[]string{"-read-timeout", "0s"}, exitUsage, "-read-timeout"},
		{[]string{"-read-timeout", "2h"}, exitUsage, "-read-timeout"},
		{[]string{"-idle-timeout", "-1s"}, exitUsage, "-idle-timeout"},
		{[]string{"-write-timeout", "0s"}, exitUsage, "-write-timeout"},
		{[]string{"-cors-origin", "localhost:3000"}, exitUsage, "-cors-origin"},
		{[]string{"-cors-origin", "*"}, exitUsage, "-cors-origin"},
		{[]string{"-cors-origin", "http://*"}, exitUsage, "-cors-origin"},
		{[]string{"-cors-origin", "http://localhost:3000/app"}, exitUsage, "-cors-origin"},
		{[]string{"-cors-origin", "http://a.example,http://b.example"}, exitUsage, "-cors-origin"},
		{[]string{"-cors-origin", "ftp://localhost"}, exitUsage, "-cors-origin"},
		{[]string{"-cors-origin", "http://user@localhost"}, exitUsage, "-cors-origin"},
		{[]string{"-public-url", "staging.example/events-service"}, exitUsage, "-public-url"},
		{[]string{"-public-url", "https://staging.example/events-service?x=1"}, exitUsage, "-public-url"},
		{[]string{"-public-url", "https://staging.example/a/../b"}, exitUsage, "-public-url"},
		{[]string{"-public-url", "https://admin:secret@staging.example"}, exitUsage, "-public-url"},
	} {
		// A port taken by another listener shows that a refused flag is
		// refused before serve listens: the message is about the flag.
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		args := append([]string{"serve", "-addr", ln.Addr().String()}, tt.args...)
		if tt.args[0] == "-addr" {
			args = append([]string{"serve"}, tt.args...)
		}
		code, stderr := runSafely(t, args)
		ln.Close()
		if code != tt.code || !strings.Contains(stderr, tt.says) {
			t.Errorf("%q: exit %d, stderr %q; want exit %d naming %q", tt.args, code, stderr, tt.code, tt.says)
		}
		if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "address already in use") || strings.Contains(stderr, "secret") {
			t.Errorf("%q: stderr %q", tt.args, stderr)
		}
	}
}

// A good origin starts the server.
func TestServeTakesAGoodCORSOrigin(t *testing.T) {
	for _, origin := range []string{"http://localhost:3000", "https://app.example", "https://app.example/"} {
		if code, stderr := runSafely(t, []string{"serve", "-addr", "127.0.0.1:0", "-cors-origin", origin, "-demo-events", "0"}); code != exitOK {
			t.Errorf("-cors-origin %s: exit %d, stderr %q", origin, code, stderr)
		}
	}
}
