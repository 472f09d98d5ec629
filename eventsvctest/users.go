package eventsvctest

import (
	"net/http"
	"net/url"
	"testing"

	"eventsvc/server/control"
)

// Account is an account as the control API lists it: its id, email and
// roles, never its password.
type Account = control.User

// NewAccount is an account AddUser adds.
type NewAccount struct {
	// Email is its login name; no other account may have it, compared
	// without regard to case.
	Email string `json:"email"`
	// Password is plain: the server hashes it and never shows it.
	Password string `json:"password"`
	// Roles are "ADMIN", "USER" or both; nil is USER.
	Roles []string `json:"roles,omitempty"`
}

// AccountChange is what ChangeUser changes of an account: its password,
// its roles or both; an empty field stays as it is.
type AccountChange struct {
	// Password is the new password, plain.
	Password string `json:"password,omitempty"`
	// Roles are the new roles.
	Roles []string `json:"roles,omitempty"`
}

// Users returns the accounts, in order (GET /users).
func (s *Server) Users(tb testing.TB) []Account {
	tb.Helper()
	return member[[]Account](tb, s, http.MethodGet, "/users", nil, "users")
}

// AddUser adds an account (POST /users), which logs in at once, and
// returns it as listed, with its id. It fails tb when the control API
// refuses it: an invalid email, an email an account has, an unknown
// role, an empty password or one longer than 72 bytes.
func (s *Server) AddUser(tb testing.TB, u NewAccount) Account {
	tb.Helper()
	return answer[Account](tb, s, http.MethodPost, "/users", u)
}

// ChangeUser changes the password, the roles or both of the account of
// email, in any case (PATCH /users/{email}), and returns it as changed.
// The old password is refused from the next request on; the account's
// live tokens stay valid. It fails tb when no account has the email, or
// ch changes nothing or is refused.
func (s *Server) ChangeUser(tb testing.TB, email string, ch AccountChange) Account {
	tb.Helper()
	return answer[Account](tb, s, http.MethodPatch, "/users/"+url.PathEscape(email), ch)
}

// RemoveUser removes the account of email, in any case (DELETE
// /users/{email}), and revokes its live tokens: a client that sends one
// then gets 401 on a write. It returns the account removed and how many
// tokens were revoked, and fails tb when no account has the email or it
// is the last account.
func (s *Server) RemoveUser(tb testing.TB, email string) (removed Account, revokedTokens int) {
	tb.Helper()
	return remove[Account](tb, s, "/users/"+url.PathEscape(email))
}
