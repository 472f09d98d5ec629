package conformance

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"eventsvc/steps"
)

// flawedLauncher starts the reference server as InProcess does, after
// breaking how a configuration is taken in one way: what a server that
// mishandles stored passwords would do with the same file.
type flawedLauncher struct {
	InProcess
	flaw func(*steps.AccountConfig)
}

func (l flawedLauncher) Launch(cfg steps.ServerConfig) (steps.Instance, error) {
	for i := range cfg.Accounts {
		l.flaw(&cfg.Accounts[i])
	}
	return l.InProcess.Launch(cfg)
}

// TestSuiteCatchesBreakagesOfStoredPasswords breaks the handling of stored
// passwords (rule ACC-3) one way at a time, and requires the @local
// scenarios of ACC-3 to fail.
func TestSuiteCatchesBreakagesOfStoredPasswords(t *testing.T) {
	tests := []struct {
		name string
		flaw func(*steps.AccountConfig)
	}{
		{"a stored value without a known marker is taken as the password itself", func(a *steps.AccountConfig) {
			if a.Stored != "" && !strings.HasPrefix(a.Stored, "{bcrypt}$2") {
				a.Password, a.Stored = a.Stored, ""
			}
		}},
		{"what eventsvc hash-password prints does not verify the password", func(a *steps.AccountConfig) {
			if a.Stored == "" {
				a.Password += "-not-what-was-hashed"
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			creds := DemoCredentials
			var out bytes.Buffer
			rep, err := Run(Options{
				Target: steps.Target{Credentials: creds, RunID: "breakage", Launcher: flawedLauncher{InProcess{Credentials: creds}, tt.flaw}},
				Tags:   "@ACC-3",
				Output: &out,
			})
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("no scenario of ACC-3 caught the flaw (Run returned %v)\n%s", err, failedSteps(out.String()))
			}
			t.Logf("caught by ACC-3:\n  %s", strings.Join(failures(rep), "\n  "))
		})
	}
}
