package suite

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/inprocess"
	"eventsvc/conformance/target"
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
