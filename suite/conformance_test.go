package suite

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"eventsvc/conformance/inprocess"
	"eventsvc/server/servertest"
)

// TestConformance runs the suite: against the in-process reference server,
// or against BASE_URL when it is set. Each scenario is a subtest:
//
//	go test ./suite -run 'TestConformance/A_user_exchanges_their_email_and_password_for_tokens'
//
// In-process, it then reads the servers' request logs of the whole run:
// they must tell every request and hold no password, secret or token.
func TestConformance(t *testing.T) {
	o, err := FromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	o.TestingT = t
	var log servertest.Log
	if l, ok := o.Target.Launcher.(inprocess.Launcher); ok {
		l.Log = &log
		o.Target.Launcher = l
	}
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
	if o.Target.Launcher == nil {
		return
	}
	text := log.String()
	if !strings.Contains(text, "method=POST path=/oauth/token status=200") {
		t.Fatalf("the request log does not tell the requests: %.500s", text)
	}
	c := o.Target.Credentials
	for _, line := range strings.Split(text, "\n") {
		for _, secret := range []string{c.ClientSecret, c.Password, c.OtherPass, "Bearer", "Basic", "access_token"} {
			if strings.Contains(line, secret) {
				t.Errorf("the request log holds %q: %s", secret, line)
			}
		}
		if m := tokenShape.FindString(line); m != "" {
			t.Errorf("the request log holds a token: %s", line)
		}
	}
}

// tokenShape matches a token of the reference server standing alone: 43
// base64url characters.
var tokenShape = regexp.MustCompile(`(^|[^A-Za-z0-9_-])[A-Za-z0-9_-]{43}([^A-Za-z0-9_-]|$)`)

// TestSlowScenariosInProcess runs the @slow scenarios, which wait in real
// time against a remote target, against the in-process server, where the
// waits move the server's clock and take no time.
func TestSlowScenariosInProcess(t *testing.T) {
	if os.Getenv("BASE_URL") != "" {
		t.Skip("BASE_URL is set: @slow scenarios against a deployment run only when CONFORMANCE_TAGS selects them")
	}
	o, err := FromEnv(os.LookupEnv)
	if err != nil {
		t.Fatal(err)
	}
	o.Tags, o.DefaultTags, o.TestingT, o.NoSummary = "@slow", false, t, true
	if _, err := Run(o); err != nil {
		t.Fatal(err)
	}
}
