package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server/account"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
)

// testPlain is the plain text of every secret and password in the test
// files; no error message may show it, nor any hash.
const testPlain = "s3cret-plain"

// testHash is the stored form of testPlain at bcrypt.MinCost.
var testHash = func() string {
	h, err := secret.Hash([]byte(testPlain), bcrypt.MinCost)
	if err != nil {
		panic(err)
	}
	return h
}()

// testFile returns a configuration file: each "HASH" in the text becomes
// testHash.
func testFile(text string) string {
	return strings.ReplaceAll(text, "HASH", testHash)
}

const (
	goodClient   = `{"clientId": "app", "clientSecret": "HASH", "authorizedGrantTypes": ["password", "refresh_token"], "scopes": ["read", "write"], "resourceIds": ["event"]}`
	goodAccounts = `{"email": "a@x.io", "password": "HASH", "roles": ["ADMIN", "USER"]},
    {"email": "b@x.io", "password": "HASH", "roles": ["USER"]}`
)

func TestParse(t *testing.T) {
	text := testFile(`{
  "clients": [` + goodClient + `],
  "accounts": [
    ` + goodAccounts + `
  ]
}
`)
	cfg, err := Parse("good.json", strings.NewReader(text))
	if err != nil {
		t.Fatalf("Parse() error = %v", err)
	}
	checkGood(t, cfg)
}

// refusal is a configuration Parse refuses, and how.
type refusal struct {
	name     string
	text     string
	wantErr  error
	wantText string // the message after `config "bad.json": `
}

// refusedEntries are files whose clients or accounts are wrong: a
// duplicate, an unknown role or grant type, a secret not stored as a
// hash, an unknown field, a wrong type.
func refusedEntries() []refusal {
	return []refusal{
		{
			name:     "duplicate email",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + `, {"email": "A@X.io", "password": "HASH", "roles": ["USER"]}]}`,
			wantErr:  account.ErrDuplicateEmail,
			wantText: `account 3 "A@X.io": duplicate email, same as account 1`,
		},
		{
			name:     "unknown role",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + `, {"email": "c@x.io", "password": "HASH", "roles": ["USER", "ROLE_ADMIN"]}]}`,
			wantErr:  account.ErrUnknownRole,
			wantText: `account 3 "c@x.io": unknown role "ROLE_ADMIN"`,
		},
		{
			name:     "no roles",
			text:     `{"clients": [` + goodClient + `], "accounts": [{"email": "c@x.io", "password": "HASH"}]}`,
			wantErr:  account.ErrUnknownRole,
			wantText: `account 1 "c@x.io": no roles`,
		},
		{
			name:     "unknown grant type",
			text:     `{"clients": [{"clientId": "app", "clientSecret": "HASH", "authorizedGrantTypes": ["password", "client_credentials"], "scopes": ["read"], "resourceIds": ["event"]}], "accounts": [` + goodAccounts + `]}`,
			wantErr:  oauth.ErrUnknownGrantType,
			wantText: `client 1 "app": unknown grant type "client_credentials"`,
		},
		{
			name:     "duplicate client",
			text:     `{"clients": [` + goodClient + `, ` + goodClient + `], "accounts": [` + goodAccounts + `]}`,
			wantErr:  oauth.ErrDuplicateClient,
			wantText: `client 2 "app": duplicate client id, same as client 1`,
		},
		{
			name:     "client secret in plain text",
			text:     `{"clients": [{"clientId": "app", "clientSecret": "` + testPlain + `", "authorizedGrantTypes": ["password"], "scopes": ["read"], "resourceIds": ["event"]}], "accounts": [` + goodAccounts + `]}`,
			wantErr:  secret.ErrUnknownScheme,
			wantText: `client 1 "app": secret: unknown encoding scheme: no {scheme} marker`,
		},
		{
			name:     "client secret {noop}",
			text:     `{"clients": [{"clientId": "app", "clientSecret": "{noop}` + testPlain + `", "authorizedGrantTypes": ["password"], "scopes": ["read"], "resourceIds": ["event"]}], "accounts": [` + goodAccounts + `]}`,
			wantErr:  secret.ErrUnknownScheme,
			wantText: `client 1 "app": secret: unknown encoding scheme: scheme {noop}`,
		},
		{
			name:     "client secret missing",
			text:     `{"clients": [{"clientId": "app", "authorizedGrantTypes": ["password"], "scopes": ["read"], "resourceIds": ["event"]}], "accounts": [` + goodAccounts + `]}`,
			wantErr:  secret.ErrUnknownScheme,
			wantText: `client 1 "app": secret: unknown encoding scheme`,
		},
		{
			name:     "password in plain text",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + `, {"email": "c@x.io", "password": "` + testPlain + `", "roles": ["USER"]}]}`,
			wantErr:  secret.ErrUnknownScheme,
			wantText: `account 3 "c@x.io": password: unknown encoding scheme: no {scheme} marker`,
		},
		{
			name:     "password {noop}",
			text:     `{"clients": [` + goodClient + `], "accounts": [{"email": "c@x.io", "password": "{noop}` + testPlain + `", "roles": ["USER"]}]}`,
			wantErr:  secret.ErrUnknownScheme,
			wantText: `account 1 "c@x.io": password: unknown encoding scheme: scheme {noop}`,
		},
		{
			name:     "password {bcrypt} but not a hash",
			text:     `{"clients": [` + goodClient + `], "accounts": [{"email": "c@x.io", "password": "{bcrypt}` + testPlain + `", "roles": ["USER"]}]}`,
			wantErr:  secret.ErrMalformed,
			wantText: `account 1 "c@x.io": password: malformed encoded secret`,
		},
		{
			name:     "unknown top-level field",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + `], "users": []}`,
			wantErr:  ErrUnknownField,
			wantText: `unknown field "users"`,
		},
		{
			name:     "unknown client field",
			text:     `{"clients": [{"clientId": "app", "secret": "` + testPlain + `", "clientSecret": "HASH", "authorizedGrantTypes": ["password"], "scopes": ["read"], "resourceIds": ["event"]}], "accounts": [` + goodAccounts + `]}`,
			wantErr:  ErrUnknownField,
			wantText: `client 1 "app": unknown field "secret"`,
		},
		{
			name:     "unknown account field",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + `, {"email": "c@x.io", "password": "HASH", "roles": ["USER"], "name": "C"}]}`,
			wantErr:  ErrUnknownField,
			wantText: `account 3 "c@x.io": unknown field "name"`,
		},
		{
			name:     "wrong type in entry",
			text:     `{"clients": [{"clientId": "app", "clientSecret": "HASH", "authorizedGrantTypes": ["password"], "scopes": "read", "resourceIds": ["event"]}], "accounts": [` + goodAccounts + `]}`,
			wantErr:  ErrSyntax,
			wantText: `client 1 "app": bad JSON: field "scopes" is a JSON string, want an array`,
		},
	}
}

// refusedDocuments are files that are not one JSON object of clients and
// accounts, or have none of either.
func refusedDocuments() []refusal {
	return []refusal{
		{
			name:     "wrong type at top level",
			text:     "{\n  \"clients\": {}\n}",
			wantErr:  ErrSyntax,
			wantText: `bad JSON: line 2, column 14: field "clients" is a JSON object, want an array`,
		},
		{
			name:     "not an object",
			text:     `[]`,
			wantErr:  ErrSyntax,
			wantText: `bad JSON: line 1, column 1: the value is a JSON array, want an object`,
		},
		{
			name:     "malformed JSON",
			text:     "{\n  \"clients\": [" + goodClient + "]\n  \"accounts\": []\n}",
			wantErr:  ErrSyntax,
			wantText: `bad JSON: line 3, column 3: invalid character '"' after object key:value pair`,
		},
		{
			name:     "trailing comma",
			text:     "{\"clients\": [" + goodClient + ",\n]}",
			wantErr:  ErrSyntax,
			wantText: `bad JSON: line 2, column 1: invalid character ']'`,
		},
		{
			name:     "truncated",
			text:     `{"clients": [` + goodClient,
			wantErr:  ErrSyntax,
			wantText: `bad JSON: unexpected end of input`,
		},
		{
			name:     "empty",
			text:     " \n",
			wantErr:  ErrSyntax,
			wantText: `bad JSON: empty, want a JSON object`,
		},
		{
			name:     "second value",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + "]}\n{}",
			wantErr:  ErrSyntax,
			wantText: `bad JSON: line 3, column 1: a second JSON value follows the first`,
		},
		{
			name:     "garbage after the value",
			text:     `{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + "]} x",
			wantErr:  ErrSyntax,
			wantText: `bad JSON: line 2, column `,
		},
		{
			name:     "empty clients",
			text:     `{"clients": [], "accounts": [` + goodAccounts + `]}`,
			wantErr:  ErrNoClients,
			wantText: `no clients`,
		},
		{
			name:     "no accounts",
			text:     `{"clients": [` + goodClient + `]}`,
			wantErr:  ErrNoAccounts,
			wantText: `no accounts`,
		},
		{
			name:     "null",
			text:     `null`,
			wantErr:  ErrNoClients,
			wantText: `no clients`,
		},
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tt := range slices.Concat(refusedEntries(), refusedDocuments()) {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := Parse("bad.json", strings.NewReader(testFile(tt.text)))
			checkRefused(t, "Parse()", cfg, err, tt.wantErr, `config "bad.json": `+tt.wantText)
		})
	}
}

// checkGood checks that cfg is that of goodClient and goodAccounts: the
// client app and the account b@x.io, a USER, authenticate with testPlain.
func checkGood(t *testing.T, cfg *Config) {
	t.Helper()
	if _, err := cfg.Clients.Authenticate("app", testPlain); err != nil {
		t.Errorf("client app: %v", err)
	}
	a, err := cfg.Accounts.Authenticate("B@x.io", testPlain)
	if err != nil || a.ID != 2 || !a.HasRole(account.User) || a.HasRole(account.Admin) {
		t.Errorf("account b = %v, %v; want id 2, roles USER", a, err)
	}
}

// checkRefused checks that call refused a configuration: that it returned
// err, wrapping wantErr, rather than cfg, and that the message starts with
// want and shows neither the plain secret nor its hash.
func checkRefused(t *testing.T, call string, cfg *Config, err, wantErr error, want string) {
	t.Helper()
	if !errors.Is(err, wantErr) {
		t.Fatalf("%s = %v, %v; want error %v", call, cfg, err, wantErr)
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, want) {
		t.Errorf("%s error =\n  %s\nwant prefix\n  %s", call, msg, want)
	}
	for _, leak := range []string{testPlain, "$2a$", testHash[len(testHash)-20:]} {
		if strings.Contains(msg, leak) {
			t.Errorf("%s error = %q, shows %q", call, msg, leak)
		}
	}
}

// goodFile is the File of goodClient and goodAccounts.
func goodFile() File {
	return File{
		Clients: []ClientEntry{{ClientID: "app", ClientSecret: testHash,
			AuthorizedGrantTypes: []string{"password", "refresh_token"}, Scopes: []string{"read", "write"}, ResourceIDs: []string{"event"}}},
		Accounts: []AccountEntry{
			{Email: "a@x.io", Password: testHash, Roles: []string{"ADMIN", "USER"}},
			{Email: "b@x.io", Password: testHash, Roles: []string{"USER"}},
		},
	}
}

func TestNew(t *testing.T) {
	cfg, err := New(goodFile())
	if err != nil {
		t.Fatalf("New() error = %v", err)
	}
	checkGood(t, cfg)
}

// TestNewRefusesAsParseDoes gives New a table of bad entries, and Parse the
// same entries written as a file: both must refuse them with the same
// error, apart from the prefix, and show no secret.
func TestNewRefusesAsParseDoes(t *testing.T) {
	tests := []struct {
		name     string
		change   func(*File)
		wantErr  error
		wantText string // the message after "config: "
	}{
		{
			name:     "no clients",
			change:   func(f *File) { f.Clients = nil },
			wantErr:  ErrNoClients,
			wantText: `no clients: "clients" must list at least one client`,
		},
		{
			name:     "empty accounts",
			change:   func(f *File) { f.Accounts = []AccountEntry{} },
			wantErr:  ErrNoAccounts,
			wantText: `no accounts: "accounts" must list at least one account`,
		},
		{
			name: "duplicate email",
			change: func(f *File) {
				f.Accounts = append(f.Accounts, AccountEntry{Email: "A@X.io", Password: testHash, Roles: []string{"USER"}})
			},
			wantErr:  account.ErrDuplicateEmail,
			wantText: `account 3 "A@X.io": duplicate email, same as account 1`,
		},
		{
			name:     "unknown role",
			change:   func(f *File) { f.Accounts[1].Roles = []string{"USER", "ROLE_ADMIN"} },
			wantErr:  account.ErrUnknownRole,
			wantText: `account 2 "b@x.io": unknown role "ROLE_ADMIN"`,
		},
		{
			name:     "no roles",
			change:   func(f *File) { f.Accounts[0].Roles = nil },
			wantErr:  account.ErrUnknownRole,
			wantText: `account 1 "a@x.io": no roles`,
		},
		{
			name:     "password in plain text",
			change:   func(f *File) { f.Accounts[1].Password = testPlain },
			wantErr:  secret.ErrUnknownScheme,
			wantText: `account 2 "b@x.io": password: unknown encoding scheme: no {scheme} marker`,
		},
		{
			name:     "password {bcrypt} but not a hash",
			change:   func(f *File) { f.Accounts[0].Password = "{bcrypt}" + testPlain },
			wantErr:  secret.ErrMalformed,
			wantText: `account 1 "a@x.io": password: malformed encoded secret`,
		},
		{
			name:     "unknown grant type",
			change:   func(f *File) { f.Clients[0].AuthorizedGrantTypes = []string{"password", "client_credentials"} },
			wantErr:  oauth.ErrUnknownGrantType,
			wantText: `client 1 "app": unknown grant type "client_credentials"`,
		},
		{
			name:     "duplicate client",
			change:   func(f *File) { f.Clients = append(f.Clients, f.Clients[0]) },
			wantErr:  oauth.ErrDuplicateClient,
			wantText: `client 2 "app": duplicate client id, same as client 1`,
		},
		{
			name:     "client secret {noop}",
			change:   func(f *File) { f.Clients[0].ClientSecret = "{noop}" + testPlain },
			wantErr:  secret.ErrUnknownScheme,
			wantText: `client 1 "app": secret: unknown encoding scheme: scheme {noop}`,
		},
		{
			name:     "client secret missing",
			change:   func(f *File) { f.Clients[0].ClientSecret = "" },
			wantErr:  secret.ErrUnknownScheme,
			wantText: `client 1 "app": secret: unknown encoding scheme`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := goodFile()
			tt.change(&f)
			cfg, err := New(f)
			checkRefused(t, "New()", cfg, err, tt.wantErr, "config: "+tt.wantText)
			msg := err.Error()
			data, err := json.Marshal(f)
			if err != nil {
				t.Fatal(err)
			}
			_, perr := Parse("bad.json", bytes.NewReader(data))
			if !errors.Is(perr, tt.wantErr) {
				t.Fatalf("Parse() error = %v, want %v", perr, tt.wantErr)
			}
			if got, want := strings.TrimPrefix(perr.Error(), `config "bad.json": `), strings.TrimPrefix(msg, "config: "); got != want {
				t.Errorf("Parse() and New() disagree:\n  Parse: %s\n  New:   %s", got, want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.json")
	text := testFile(`{"clients": [` + goodClient + `], "accounts": [` + goodAccounts + `]}`)
	if err := os.WriteFile(good, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(good)
	if err != nil {
		t.Fatalf("Load() error = %v", err)
	}
	if cfg.Accounts.Len() != 2 {
		t.Errorf("Accounts.Len() = %d, want 2", cfg.Accounts.Len())
	}

	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"clients": []}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); !errors.Is(err, ErrNoClients) || !strings.HasPrefix(err.Error(), `config "`+bad+`": `) {
		t.Errorf("Load(bad) error = %v, want it to name the file and wrap ErrNoClients", err)
	}

	missing := filepath.Join(dir, "missing.json")
	if _, err := Load(missing); !errors.Is(err, fs.ErrNotExist) || !strings.HasPrefix(err.Error(), `config "`+missing+`": `) {
		t.Errorf("Load(missing) error = %v, want it to name the file and wrap fs.ErrNotExist", err)
	}
}
