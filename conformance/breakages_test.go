package conformance

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"eventsvc/steps"
)

// flawedLauncher starts the reference server as InProcess does, after
// breaking how a configuration is taken in one way: what a server that
// mishandles stored passwords and secrets would do with the same file.
// flaw gets each configured plain and stored value and returns them
// changed.
type flawedLauncher struct {
	InProcess
	flaw func(plain, stored string) (string, string)
}

func (l flawedLauncher) Launch(cfg steps.ServerConfig) (steps.Instance, error) {
	cfg.Accounts, cfg.Clients = slices.Clone(cfg.Accounts), slices.Clone(cfg.Clients) // the scenario's own stay as they are
	for i := range cfg.Accounts {
		a := &cfg.Accounts[i]
		a.Password, a.Stored = l.flaw(a.Password, a.Stored)
	}
	for i := range cfg.Clients {
		c := &cfg.Clients[i]
		c.Secret, c.Stored = l.flaw(c.Secret, c.Stored)
	}
	return l.InProcess.Launch(cfg)
}

// TestSuiteCatchesBreakagesOfStoredSecrets breaks the handling of stored
// passwords (rule ACC-3) and client secrets (CLI-2) one way at a time, and
// requires the @local scenarios of each rule to fail.
func TestSuiteCatchesBreakagesOfStoredSecrets(t *testing.T) {
	flaws := []struct {
		name string
		flaw func(plain, stored string) (string, string)
	}{
		{"a stored value without a known marker is taken as the secret itself", func(plain, stored string) (string, string) {
			if stored != "" && !strings.HasPrefix(stored, "{bcrypt}$2") {
				return stored, ""
			}
			return plain, stored
		}},
		{"what eventsvc hash-password prints does not verify the secret", func(plain, stored string) (string, string) {
			if stored == "" {
				plain += "-not-what-was-hashed"
			}
			return plain, stored
		}},
	}
	for _, rule := range []string{"ACC-3", "CLI-2"} {
		for _, f := range flaws {
			t.Run(rule+": "+f.name, func(t *testing.T) {
				t.Parallel()
				creds := DemoCredentials
				var out bytes.Buffer
				err := Run(Options{
					Target: steps.Target{Credentials: creds, RunID: "breakage", Launcher: flawedLauncher{InProcess{Credentials: creds}, f.flaw}},
					Tags:   "@" + rule + " && @local",
					Output: &out,
				})
				if !errors.Is(err, ErrFailed) {
					t.Fatalf("no @local scenario of %s caught the flaw (Run returned %v)%s", rule, err, failedSteps(out.String()))
				}
				t.Logf("caught by %s:\n  %s", rule, strings.Join(failures(out.String()), "\n  "))
			})
		}
	}
}
