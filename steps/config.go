package steps

import (
	"fmt"
	"strings"

	"github.com/cucumber/godog"
	"golang.org/x/crypto/bcrypt"

	"eventsvc/server/secret"
)

// configCost is the bcrypt cost of the passwords and secrets the scenarios
// configure: real bcrypt, at its cheapest, since the scenarios make many.
const configCost = bcrypt.MinCost

func (s *scenario) registerConfigSteps(sc *godog.ScenarioContext) {
	sc.Step(`^a configuration with the accounts:$`, s.configureAccounts)
	sc.Step(`^the reference server runs with the accounts:$`, s.runWithAccounts)
	sc.Step(`^the stored password of "([^"]*)" is "([^"]*)"$`, s.setStoredPassword)
	sc.Step(`^the stored password of "([^"]*)" starts with "([^"]*)"$`, s.storedPasswordStartsWith)
	sc.Step(`^a configuration with a client "([^"]*)" for the grant types "([^"]*)" and the resource "([^"]*)"$`, s.configureClient)
	sc.Step(`^the reference server runs with a client "([^"]*)" for the grant types "([^"]*)" and the resource "([^"]*)"$`, s.runWithClient)
	sc.Step(`^the stored secret of client "([^"]*)" is "([^"]*)"$`, s.setStoredSecret)
	sc.Step(`^the reference server starts with it$`, s.startWithConfig)
	sc.Step(`^it starts$`, s.itStarts)
	sc.Step(`^it refuses to start with a message that mentions "([^"]*)"$`, func(a string) error { return s.refusesToStart(a) })
	sc.Step(`^it refuses to start with a message that mentions "([^"]*)" and "([^"]*)"$`, func(a, b string) error { return s.refusesToStart(a, b) })
}

// configureAccounts reads a table with the columns email, password (plain,
// stored as {bcrypt}) and roles (comma-separated).
func (s *scenario) configureAccounts(table *godog.Table) error {
	rows, err := tableMaps(table, "email", "password", "roles")
	if err != nil {
		return err
	}
	s.config.Accounts = nil
	for _, r := range rows {
		stored, err := secret.Hash([]byte(r["password"]), configCost)
		if err != nil {
			return fmt.Errorf("hash the password of %s: %w", r["email"], err)
		}
		s.config.Accounts = append(s.config.Accounts, AccountConfig{
			Email: r["email"], StoredPassword: stored, Roles: splitList(r["roles"]),
		})
	}
	return nil
}

func (s *scenario) runWithAccounts(table *godog.Table) error {
	if err := s.configureAccounts(table); err != nil {
		return err
	}
	return s.launch(s.config)
}

func (s *scenario) account(email string) (*AccountConfig, error) {
	for i := range s.config.Accounts {
		if s.config.Accounts[i].Email == email {
			return &s.config.Accounts[i], nil
		}
	}
	return nil, fmt.Errorf("no account %q in this scenario's configuration", email)
}

func (s *scenario) setStoredPassword(email, stored string) error {
	a, err := s.account(email)
	if err != nil {
		return err
	}
	a.StoredPassword = stored
	return nil
}

func (s *scenario) storedPasswordStartsWith(email, prefix string) error {
	a, err := s.account(email)
	if err != nil {
		return err
	}
	if !strings.HasPrefix(a.StoredPassword, prefix) {
		return fmt.Errorf("the stored password of %s does not start with %q", email, prefix)
	}
	return nil
}

// configureClient adds a client whose secret is "<id>-secret", stored as
// {bcrypt}, with the scopes read and write.
func (s *scenario) configureClient(id, grants, resource string) error {
	plain := id + "-secret"
	stored, err := secret.Hash([]byte(plain), configCost)
	if err != nil {
		return fmt.Errorf("hash the secret of %s: %w", id, err)
	}
	s.secrets[id] = plain
	s.config.Clients = append(s.config.Clients, ClientConfig{
		ID: id, StoredSecret: stored, GrantTypes: splitList(grants),
		Scopes: []string{"read", "write"}, ResourceIDs: []string{resource},
	})
	return nil
}

func (s *scenario) runWithClient(id, grants, resource string) error {
	if err := s.configureClient(id, grants, resource); err != nil {
		return err
	}
	return s.launch(s.config)
}

func (s *scenario) setStoredSecret(id, stored string) error {
	for i := range s.config.Clients {
		if s.config.Clients[i].ID == id {
			s.config.Clients[i].StoredSecret = stored
			return nil
		}
	}
	return fmt.Errorf("no client %q in this scenario's configuration", id)
}

func (s *scenario) startWithConfig() error {
	if s.target.Launcher == nil {
		return s.launch(s.config) // says why it cannot
	}
	s.startErr = s.launch(s.config)
	s.started = true
	return nil
}

func (s *scenario) itStarts() error {
	if !s.started {
		return fmt.Errorf("the server was not started with the configuration")
	}
	if s.startErr != nil {
		return fmt.Errorf("the server refused to start: %w", s.startErr)
	}
	return nil
}

func (s *scenario) refusesToStart(words ...string) error {
	if !s.started {
		return fmt.Errorf("the server was not started with the configuration")
	}
	if s.startErr == nil {
		return fmt.Errorf("the server started; it should have refused the configuration")
	}
	msg := s.startErr.Error()
	for _, w := range words {
		if !strings.Contains(msg, w) {
			return fmt.Errorf("the refusal %q does not mention %q", s.redactor.String(msg), w)
		}
	}
	if strings.Contains(msg, "$2a$") || strings.Contains(msg, "$2b$") {
		return fmt.Errorf("the refusal %q shows a stored password hash", msg)
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
		found := false
		for _, h := range header {
			found = found || h == want
		}
		if !found {
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

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
