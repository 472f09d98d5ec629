package account

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
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
	set atomic.Pointer[accountSet]
}

// accountSet is one immutable set of accounts.
type accountSet struct {
	accounts []Account
	byID     map[int64]int
	byEmail  map[string]int
	dummy    secret.Dummy // of dummyPassword
}

// NewRegistry checks accounts and returns a registry holding copies of them.
// An account with ID 0 gets its 1-based position as ID. It refuses a
// negative or duplicate ID, an invalid email (ErrInvalidEmail), a duplicate
// email compared case-insensitively (ErrDuplicateEmail), no roles or an
// unknown role (ErrUnknownRole), and a password hash secret.Validate
// refuses. Each error names the entry by 1-based position and email.
func NewRegistry(accounts []Account) (*Registry, error) {
	s, err := newAccountSet(accounts, &accountSet{})
	if err != nil {
		return nil, err
	}
	r := &Registry{}
	r.set.Store(s)
	return r, nil
}

// Replace checks accounts as NewRegistry does and, when they pass, makes
// them the registry's accounts in one step: a lookup sees either the old
// accounts or the new ones, never a mix. When they do not pass, the
// registry keeps its accounts.
func (r *Registry) Replace(accounts []Account) error {
	s, err := newAccountSet(accounts, r.load())
	if err != nil {
		return err
	}
	r.set.Store(s)
	return nil
}

// newAccountSet checks accounts and returns a set of copies of them; it
// takes the dummy of old when its cost is the one needed. The dummy costs
// as much as the dearest account, so that an unknown email takes as long
// as any account's wrong password, never less.
func newAccountSet(accounts []Account, old *accountSet) (*accountSet, error) {
	r := &accountSet{
		accounts: make([]Account, 0, len(accounts)),
		byID:     make(map[int64]int, len(accounts)),
		byEmail:  make(map[string]int, len(accounts)),
	}
	hashes := make([]string, 0, len(accounts))
	for i, a := range accounts {
		pos := i + 1
		a, err := check(a.clone(), pos)
		if err != nil {
			return nil, fmt.Errorf("account %d %q: %w", pos, a.Email, err)
		}
		key := emailKey(a.Email)
		if j, dup := r.byEmail[key]; dup {
			return nil, fmt.Errorf("account %d %q: %w, same as account %d", pos, a.Email, ErrDuplicateEmail, j+1)
		}
		if j, dup := r.byID[a.ID]; dup {
			return nil, fmt.Errorf("account %d %q: %w %d, same as account %d", pos, a.Email, ErrDuplicateID, a.ID, j+1)
		}
		r.byEmail[key] = i
		r.byID[a.ID] = i
		r.accounts = append(r.accounts, a)
		hashes = append(hashes, a.PasswordHash)
	}
	var err error
	if r.dummy, err = secret.NewDummy(dummyPassword, hashes, old.dummy); err != nil {
		return nil, fmt.Errorf("account registry: %w", err)
	}
	return r, nil
}

// load is the registry's set; empty for a zero Registry.
func (r *Registry) load() *accountSet {
	if s := r.set.Load(); s != nil {
		return s
	}
	return &accountSet{}
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
	s := r.load()
	i, ok := s.byEmail[emailKey(email)]
	if !ok {
		_ = secret.Check(s.dummy.Stored, password) // equal timing; the result does not matter
		return Account{}, ErrBadCredentials
	}
	a := s.accounts[i]
	if err := secret.Check(a.PasswordHash, password); err != nil {
		return Account{}, ErrBadCredentials
	}
	return a.clone(), nil
}

// ByID returns a copy of the account with the given id.
func (r *Registry) ByID(id int64) (Account, bool) {
	s := r.load()
	i, ok := s.byID[id]
	if !ok {
		return Account{}, false
	}
	return s.accounts[i].clone(), true
}

// ByEmail returns a copy of the account whose email matches email
// case-insensitively.
func (r *Registry) ByEmail(email string) (Account, bool) {
	s := r.load()
	i, ok := s.byEmail[emailKey(email)]
	if !ok {
		return Account{}, false
	}
	return s.accounts[i].clone(), true
}

// Len returns the number of accounts.
func (r *Registry) Len() int {
	return len(r.load().accounts)
}

// All returns copies of the accounts, in the order they were given.
func (r *Registry) All() []Account {
	s := r.load()
	out := make([]Account, len(s.accounts))
	for i, a := range s.accounts {
		out[i] = a.clone()
	}
	return out
}

// First returns a copy of the first account, in the order they were
// given, if there is one.
func (r *Registry) First() (Account, bool) {
	s := r.load()
	if len(s.accounts) == 0 {
		return Account{}, false
	}
	return s.accounts[0].clone(), true
}

// emailKey is the form under which emails are compared.
func emailKey(email string) string {
	return strings.ToLower(email)
}
