// Package account holds the user accounts that may obtain tokens with the
// password grant: their emails, encoded passwords and roles.
package account

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Role is a role granted to an account.
type Role string

// The known roles.
const (
	Admin Role = "ADMIN"
	User  Role = "USER"
)

// ErrUnknownRole reports a role other than ADMIN and USER.
var ErrUnknownRole = errors.New("unknown role")

// ParseRole returns the role named s, which must be exactly "ADMIN" or
// "USER"; anything else gives an error wrapping ErrUnknownRole.
func ParseRole(s string) (Role, error) {
	switch r := Role(s); r {
	case Admin, User:
		return r, nil
	}
	return "", fmt.Errorf("%w %q, want %s or %s", ErrUnknownRole, s, Admin, User)
}

// Account is a user who can obtain tokens. Its printed forms (String and
// every fmt verb) never show PasswordHash.
type Account struct {
	ID    int64
	Email string
	// PasswordHash is the stored form of the password, "{bcrypt}...".
	PasswordHash string `json:"-"`
	Roles        []Role
}

// HasRole reports whether the account has role r.
func (a Account) HasRole(r Role) bool {
	return slices.Contains(a.Roles, r)
}

// String describes the account by id, email and roles, never its password.
func (a Account) String() string {
	roles := make([]string, len(a.Roles))
	for i, r := range a.Roles {
		roles[i] = string(r)
	}
	return fmt.Sprintf("account %d %s [%s]", a.ID, a.Email, strings.Join(roles, " "))
}

// Format prints the account for any fmt verb without its password: %#v
// gives a Go-like form with the hash redacted, every other verb applies to
// String.
func (a Account) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprintf(f, "account.Account{ID:%d, Email:%q, PasswordHash:\"[REDACTED]\", Roles:%#v}", a.ID, a.Email, a.Roles)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), a.String())
}

// clone returns a copy of a that shares no memory with it.
func (a Account) clone() Account {
	a.Roles = append([]Role(nil), a.Roles...)
	return a
}
