package account

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"eventsvc/server/secret"
)

// Sentinel errors, for errors.Is.
var (
	// ErrInvalidEmail reports an email that is empty, longer than
	// MaxEmailLen bytes, holds whitespace or
	// control characters, or does not have exactly one "@" between a
	// non-empty local part and domain.
	ErrInvalidEmail = errors.New("invalid email")
	// ErrDuplicateEmail reports two accounts whose emails differ at most in
	// case.
	ErrDuplicateEmail = errors.New("duplicate email")
	// ErrNoRoles reports an account without roles. It wraps ErrUnknownRole.
	ErrNoRoles = fmt.Errorf("no roles, want %s and/or %s: %w", Admin, User, ErrUnknownRole)
	// ErrInvalidID reports a negative account id.
	ErrInvalidID = errors.New("invalid id")
	// ErrDuplicateID reports two accounts with the same id.
	ErrDuplicateID = errors.New("duplicate id")
	// ErrBadCredentials reports an unknown email or a wrong password; the
	// caller cannot tell which.
	ErrBadCredentials = errors.New("bad credentials")
)

// MaxEmailLen is the longest email, in bytes, an account may have: the
// longest address SMTP carries (RFC 5321 §4.5.3.1.3,
// https://www.rfc-editor.org/rfc/rfc5321#section-4.5.3.1.3, less the angle
// brackets). The token endpoint refuses a longer username before any
// lookup.
const MaxEmailLen = 254

// dummyPassword is hashed once per registry, at the highest cost of its
// accounts, so that an unknown email costs the same bcrypt comparison as
// the dearest known one.
const dummyPassword = "no account has this password"

// Registry is the set of accounts, looked up by id or by email
// (case-insensitively). Its set is replaced whole (Replace), never changed
// in place: each lookup reads one set, before or after a replacement,
// with one atomic load and no lock. It is safe for concurrent use.
type Registry struct {
	set secret.Registry[Account, accountKind]
}

// accountKind is how a Registry checks, names and indexes accounts: by
// email, compared case-insensitively, and by id.
type accountKind struct{}

func (accountKind) Noun() string                              { return "account" }
func (accountKind) DummySecret() string                       { return dummyPassword }
func (accountKind) Check(a Account, pos int) (Account, error) { return check(a, pos) }
func (accountKind) Label(a Account) string                    { return a.Email }
func (accountKind) Keys(a Account) []any                      { return []any{emailKey(a.Email), a.ID} }
func (accountKind) Stored(a Account) string                   { return a.PasswordHash }
func (accountKind) Clone(a Account) Account                   { return a.clone() }

func (accountKind) Repeated(a Account, key any) error {
	if _, id := key.(int64); id {
		return fmt.Errorf("%w %d", ErrDuplicateID, a.ID)
	}
	return ErrDuplicateEmail
}

// NewRegistry checks accounts and returns a registry holding copies of them.
// An account with ID 0 gets its 1-based position as ID. It refuses a
// negative or duplicate ID, an invalid email (ErrInvalidEmail), a duplicate
// email compared case-insensitively (ErrDuplicateEmail), no roles or an
// unknown role (ErrUnknownRole), and a password hash secret.Validate
// refuses. Each error names the entry by 1-based position and email.
func NewRegistry(accounts []Account) (*Registry, error) {
	r := &Registry{}
	if err := r.Replace(accounts); err != nil {
		return nil, err
	}
	return r, nil
}

// Replace checks accounts as NewRegistry does and, when they pass, makes
// them the registry's accounts in one step: a lookup sees either the old
// accounts or the new ones, never a mix. When they do not pass, the
// registry keeps its accounts.
func (r *Registry) Replace(accounts []Account) error {
	return r.set.Replace(accounts)
}

// CheckAccount checks one account as NewRegistry checks each of its
// accounts, for a caller that adds or changes one: a valid email, known
// roles (at least one) and a usable password hash. It returns the account
// with its roles without repeats; an ID of 0 stays 0.
func CheckAccount(a Account) (Account, error) {
	id := a.ID
	a, err := check(a.clone(), 1)
	if id == 0 {
		a.ID = 0
	}
	return a, err
}

// check validates one account at 1-based position pos and returns it with
// its ID assigned and its roles without repeats.
func check(a Account, pos int) (Account, error) {
	if err := checkEmail(a.Email); err != nil {
		return a, err
	}
	switch {
	case a.ID < 0:
		return a, fmt.Errorf("%w %d", ErrInvalidID, a.ID)
	case a.ID == 0:
		a.ID = int64(pos)
	}
	if len(a.Roles) == 0 {
		return a, ErrNoRoles
	}
	roles := a.Roles[:0]
	for _, role := range a.Roles {
		if _, err := ParseRole(string(role)); err != nil {
			return a, err
		}
		if !slices.Contains(roles, role) {
			roles = append(roles, role)
		}
	}
	a.Roles = roles
	if err := secret.Validate(a.PasswordHash); err != nil {
		return a, fmt.Errorf("password: %w", err)
	}
	return a, nil
}

// checkEmail refuses an email that cannot name an account.
func checkEmail(email string) error {
	if email == "" {
		return fmt.Errorf("%w: empty", ErrInvalidEmail)
	}
	if len(email) > MaxEmailLen {
		return fmt.Errorf("%w: longer than %d bytes", ErrInvalidEmail, MaxEmailLen)
	}
	for _, c := range email {
		if unicode.IsSpace(c) || unicode.IsControl(c) {
			return fmt.Errorf("%w: contains whitespace or a control character", ErrInvalidEmail)
		}
	}
	local, domain, ok := strings.Cut(email, "@")
	if !ok || strings.Contains(domain, "@") {
		return fmt.Errorf("%w: want exactly one \"@\"", ErrInvalidEmail)
	}
	if local == "" || domain == "" {
		return fmt.Errorf("%w: empty part before or after \"@\"", ErrInvalidEmail)
	}
	return nil
}

// Authenticate returns a copy of the account whose email matches email
// case-insensitively and whose password is password. An unknown email and
// a wrong password both give ErrBadCredentials, after the same bcrypt work.
func (r *Registry) Authenticate(email, password string) (Account, error) {
	a, ok := r.set.Authenticate(emailKey(email), password)
	if !ok {
		return Account{}, ErrBadCredentials
	}
	return a, nil
}

// ByID returns a copy of the account with the given id.
func (r *Registry) ByID(id int64) (Account, bool) {
	return r.set.Lookup(id)
}

// ByEmail returns a copy of the account whose email matches email
// case-insensitively.
func (r *Registry) ByEmail(email string) (Account, bool) {
	return r.set.Lookup(emailKey(email))
}

// Len returns the number of accounts.
func (r *Registry) Len() int {
	return r.set.Len()
}

// All returns copies of the accounts, in the order they were given.
func (r *Registry) All() []Account {
	return r.set.All()
}

// First returns a copy of the first account, in the order they were
// given, if there is one.
func (r *Registry) First() (Account, bool) {
	return r.set.First()
}

// emailKey is the form under which emails are compared.
func emailKey(email string) string {
	return strings.ToLower(email)
}
