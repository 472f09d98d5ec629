package steps

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cucumber/godog"
	"golang.org/x/crypto/bcrypt"

	"eventsvc/conformance/target"
)

// The steps that configure the in-process reference server (@local). They
// hand the launcher plain passwords and secrets, which it stores the way
// `eventsvc hash-password` prints them, or a stored value given as it is.
func (s *scenario) registerConfigSteps(sc stepRegistry) {
	sc.Step(`^(a configuration|the reference server runs) with the accounts:$`, func(how string, t *godog.Table) error {
		return s.andRun(how, s.configureAccounts(t))
	})
	sc.Step(`^(a configuration|the reference server runs) with a client "([^"]*)" for the grant types "([^"]*)" and the resource "([^"]*)"$`, func(how, id, grants, resource string) error {
		return s.andRun(how, s.configureClient(id, grants, resource))
	})
	sc.Step(`^the stored (password of|secret of client) "([^"]*)" is (.+)$`, s.setStored)
	sc.Step(`^the reference server starts with it$`, s.startWithConfig)
	sc.Step(`^the reference server runs with at most (\d+) events? per user$`, func(n int) error {
		s.config.MaxEventsPerUser = n
		return s.launch(s.config)
	})
	sc.Step(`^it refuses to start with a message that mentions "([^"]*)"(?: and "([^"]*)")?$`, s.refusesToStart)
}

// configureAccounts reads a table with the columns email, password (plain)
// and roles (comma-separated).
func (s *scenario) configureAccounts(table *godog.Table) error {
	rows, err := tableMaps(table, "email", "password", "roles")
	if err != nil {
		return err
	}
	s.config.Accounts = nil
	for _, r := range rows {
		s.learn(r["password"])
		s.config.Accounts = append(s.config.Accounts, target.AccountConfig{Email: r["email"], Password: r["password"], Roles: splitList(r["roles"])})
	}
	return nil
}

// configureClient adds a client whose secret is "<id>-secret", with the
// scopes read and write.
func (s *scenario) configureClient(id, grants, resource string) error {
	s.learn(id + "-secret")
	s.config.Clients = append(s.config.Clients, target.ClientConfig{
		ID: id, Secret: id + "-secret", GrantTypes: splitList(grants),
		Scopes: []string{"read", "write"}, ResourceIDs: []string{resource},
	})
	return nil
}

// andRun starts the server with the configuration built so far when the
// step says it runs, unless building it failed.
func (s *scenario) andRun(how string, err error) error {
	if err != nil || how == "a configuration" {
		return err
	}
	return s.launch(s.config)
}

var (
	quotedValue = regexp.MustCompile(`^"([^"]*)"(, in plain text)?$`)
	bareHash    = regexp.MustCompile(`^the bcrypt hash of "([^"]*)" without its marker$`)
)

// storedValue reads the words of a stored value: "X" or "X", in plain
// text, stored as written; or the bcrypt hash of "X" without its marker.
func storedValue(words string) (string, error) {
	if m := quotedValue.FindStringSubmatch(words); m != nil {
		return m[1], nil
	}
	if m := bareHash.FindStringSubmatch(words); m != nil {
		h, err := bcrypt.GenerateFromPassword([]byte(m[1]), bcrypt.MinCost)
		return string(h), err
	}
	return "", fmt.Errorf("no such stored value: %s", words)
}

// setStored sets the stored password of an account, or the stored secret of
// a client, of the configuration being built.
func (s *scenario) setStored(what, name, words string) error {
	stored, err := storedValue(words)
	if err != nil {
		return err
	}
	if what == "password of" {
		for i := range s.config.Accounts {
			if s.config.Accounts[i].Email == name {
				s.config.Accounts[i].Stored = stored
				return nil
			}
		}
		return fmt.Errorf("no account %q in this scenario's configuration", name)
	}
	for i := range s.config.Clients {
		if s.config.Clients[i].ID == name {
			s.config.Clients[i].Stored = stored
			return nil
		}
	}
	return fmt.Errorf("no client %q in this scenario's configuration", name)
}

func (s *scenario) startWithConfig() error {
	if s.target.Remote() {
		return s.launch(s.config) // says why it cannot
	}
	s.startErr = s.launch(s.config)
	s.started = true
	return nil
}

func (s *scenario) refusesToStart(a, b string) error {
	if !s.started {
		return fmt.Errorf("the server was not started with the configuration")
	}
	if s.startErr == nil {
		return fmt.Errorf("the server started; it should have refused the configuration")
	}
	msg := s.startErr.Error()
	for _, w := range []string{a, b} {
		if !strings.Contains(msg, w) {
			return fmt.Errorf("the refusal %q does not mention %q", s.redactor.String(msg), w)
		}
	}
	if strings.Contains(msg, "$2a$") || strings.Contains(msg, "$2b$") {
		return fmt.Errorf("the refusal %q shows a stored password hash", s.redactor.String(msg))
	}
	return nil
}

// tableMaps reads a table with a header row into maps, requiring columns.
func tableMaps(table *godog.Table, columns ...string) ([]map[string]string, error) {
	if len(table.Rows) < 2 {
		return nil, fmt.Errorf("the table needs a header row and at least one row")
	}
	var header []string
	for _, c := range table.Rows[0].Cells {
		header = append(header, c.Value)
	}
	for _, want := range columns {
		if !strings.Contains(","+strings.Join(header, ",")+",", ","+want+",") {
			return nil, fmt.Errorf("the table has no column %q", want)
		}
	}
	var out []map[string]string
	for _, row := range table.Rows[1:] {
		m := map[string]string{}
		for i, c := range row.Cells {
			m[header[i]] = c.Value
		}
		out = append(out, m)
	}
	return out, nil
}
