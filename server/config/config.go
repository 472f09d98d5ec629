// Package config holds the reference server's client registrations and
// accounts: read from a JSON file (Load, Parse), taken from the embedded
// demo file (Demo), or built from typed entries in Go (New).
//
// The file holds secrets and passwords only in their stored form,
// "{bcrypt}...":
//
//	{
//	  "clients": [
//	    {"clientId": "myApp", "clientSecret": "{bcrypt}...",
//	     "authorizedGrantTypes": ["password", "refresh_token"],
//	     "scopes": ["read", "write"], "resourceIds": ["event"]}
//	  ],
//	  "accounts": [
//	    {"email": "user@email.com", "password": "{bcrypt}...", "roles": ["USER"]}
//	  ]
//	}
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"eventsvc/server/account"
	"eventsvc/server/oauth"
)

// Config is what the reference server serves with: its client registrations
// and its accounts.
type Config struct {
	Clients  *oauth.Clients
	Accounts *account.Registry
}

// Sentinel errors, for errors.Is.
var (
	// ErrSyntax reports a file that is not one well-formed JSON object of
	// the expected shape.
	ErrSyntax = errors.New("bad JSON")
	// ErrUnknownField reports a property the format does not have.
	ErrUnknownField = errors.New("unknown field")
	// ErrNoClients reports a file without client registrations.
	ErrNoClients = errors.New("no clients")
	// ErrNoAccounts reports a file without accounts.
	ErrNoAccounts = errors.New("no accounts")
)

// File is the content of a configuration file: New makes a Config of it
// without JSON, and a program that writes a file marshals it.
type File struct {
	Clients  []ClientEntry  `json:"clients"`
	Accounts []AccountEntry `json:"accounts"`
}

// file is the shape of a configuration file as Parse reads it. Its entries
// are decoded one by one, so that an error can name the entry.
type file struct {
	Clients  []json.RawMessage `json:"clients"`
	Accounts []json.RawMessage `json:"accounts"`
}

// ClientEntry is one element of "clients" in a configuration file.
type ClientEntry struct {
	ClientID             string   `json:"clientId"`
	ClientSecret         string   `json:"clientSecret"`
	AuthorizedGrantTypes []string `json:"authorizedGrantTypes"`
	Scopes               []string `json:"scopes"`
	ResourceIDs          []string `json:"resourceIds"`
}

// AccountEntry is one element of "accounts" in a configuration file.
type AccountEntry struct {
	Email    string   `json:"email"`
	Password string   `json:"password"`
	Roles    []string `json:"roles"`
}

// Client is the registration e describes, unchecked (oauth.NewClients
// and oauth.CheckClient check it).
func (e ClientEntry) Client() oauth.Client {
	return oauth.Client{
		ID:          e.ClientID,
		SecretHash:  e.ClientSecret,
		GrantTypes:  e.AuthorizedGrantTypes,
		Scopes:      e.Scopes,
		ResourceIDs: e.ResourceIDs,
	}
}

// Account is the account e describes, unchecked (account.NewRegistry and
// account.CheckAccount check it).
func (e AccountEntry) Account() account.Account {
	roles := make([]account.Role, len(e.Roles))
	for j, role := range e.Roles {
		roles[j] = account.Role(role)
	}
	return account.Account{Email: e.Email, PasswordHash: e.Password, Roles: roles}
}

// Load reads the configuration file at path.
func Load(path string) (*Config, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("config %q: %w", path, err)
	}
	defer f.Close()
	return Parse(path, f)
}

// New returns the Config of f's entries: the same validation as Parse,
// with the same messages after the prefix "config: ", for a program that
// builds its configuration in Go. Errors name the bad entry by position and
// id or email, and never hold a secret or a password, stored or plain.
func New(f File) (*Config, error) {
	c, err := build(f)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return c, nil
}

// Parse reads a configuration from r; name names it in errors, which start
// with `config "NAME": ` and name the bad entry by position and id or email.
// Unknown properties, a second JSON value, no clients and no accounts are
// refused, and so is every entry oauth.NewClients or account.NewRegistry
// refuses. Errors never hold a secret or a password, stored or plain.
func Parse(name string, r io.Reader) (*Config, error) {
	c, err := parse(r)
	if err != nil {
		return nil, fmt.Errorf("config %q: %w", name, err)
	}
	return c, nil
}

// parse is Parse without the name in its errors: it decodes the file into
// a File, one entry at a time so that an error can name the entry, and
// builds the Config as New does.
func parse(r io.Reader) (*Config, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var raw file
	if err := decode(data, &raw, true); err != nil {
		return nil, err
	}
	clients, err := decodeEntries(raw.Clients, "client", func(e ClientEntry) string { return e.ClientID })
	if err != nil {
		return nil, err
	}
	accounts, err := decodeEntries(raw.Accounts, "account", func(e AccountEntry) string { return e.Email })
	if err != nil {
		return nil, err
	}
	return build(File{Clients: clients, Accounts: accounts})
}

// decodeEntries decodes each of a file's entries of one kind (noun) on
// its own; an error names the entry by 1-based position and label (its id
// or email, read as far as it decodes).
func decodeEntries[E any](raw []json.RawMessage, noun string, label func(E) string) ([]E, error) {
	var entries []E
	for i, entry := range raw {
		var e E
		if err := decode(entry, &e, false); err != nil {
			_ = json.Unmarshal(entry, &e) // best effort, for the label in the message
			return nil, fmt.Errorf("%s %d %q: %w", noun, i+1, label(e), err)
		}
		entries = append(entries, e)
	}
	return entries, nil
}

// build is New without the prefix in its errors.
func build(f File) (*Config, error) {
	if len(f.Clients) == 0 {
		return nil, fmt.Errorf("%w: \"clients\" must list at least one client", ErrNoClients)
	}
	if len(f.Accounts) == 0 {
		return nil, fmt.Errorf("%w: \"accounts\" must list at least one account", ErrNoAccounts)
	}
	cs, err := oauth.NewClients(each(f.Clients, ClientEntry.Client))
	if err != nil {
		return nil, err
	}
	as, err := account.NewRegistry(each(f.Accounts, AccountEntry.Account))
	if err != nil {
		return nil, err
	}
	return &Config{Clients: cs, Accounts: as}, nil
}

// each is what of every entry, in order.
func each[E, T any](entries []E, what func(E) T) []T {
	out := make([]T, len(entries))
	for i, e := range entries {
		out[i] = what(e)
	}
	return out
}

// decode decodes the single JSON value in data into v, refusing unknown
// fields and anything after the value. Its errors never quote a JSON string;
// when locate is set they give the line and column in data.
func decode(data []byte, v any, locate bool) error {
	at := func(offset int64) string {
		if !locate {
			return ""
		}
		return position(data, offset) + ": "
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		var extra json.RawMessage
		switch err = dec.Decode(&extra); err {
		case io.EOF:
			return nil
		case nil:
			return fmt.Errorf("%w: %sa second JSON value follows the first", ErrSyntax, at(dec.InputOffset()-int64(len(extra))+1))
		}
	}
	var (
		syntax *json.SyntaxError
		typ    *json.UnmarshalTypeError
	)
	switch {
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: empty, want a JSON object", ErrSyntax)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: unexpected end of input", ErrSyntax)
	case errors.As(err, &syntax):
		return fmt.Errorf("%w: %s%s", ErrSyntax, at(syntax.Offset), syntax.Error())
	case errors.As(err, &typ):
		what := "the value"
		if typ.Field != "" {
			what = fmt.Sprintf("field %q", typ.Field)
		}
		return fmt.Errorf("%w: %s%s is a JSON %s, want %s", ErrSyntax, at(typ.Offset), what, typ.Value, jsonKind(typ.Type))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return fmt.Errorf("%w %s", ErrUnknownField, strings.TrimPrefix(err.Error(), "json: unknown field "))
	}
	return fmt.Errorf("%w: %w", ErrSyntax, err)
}

// jsonKind names the JSON type that decodes into t.
func jsonKind(t reflect.Type) string {
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return "a " + t.Kind().String()
}

// position gives the line and column, from 1, of the byte before offset in
// data: the byte the JSON decoder stopped at.
func position(data []byte, offset int64) string {
	i := min(max(int(offset)-1, 0), len(data))
	line := 1 + bytes.Count(data[:i], []byte("\n"))
	col := i - bytes.LastIndexByte(data[:i], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}
