package control

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/account"
	"eventsvc/server/oauth"
	"eventsvc/server/secret"
)

// User is an account as the control API shows it: never its password nor
// the password's hash.
type User struct {
	ID    int64    `json:"id"`
	Email string   `json:"email"`
	Roles []string `json:"roles"`
}

// userOf is the User view of a.
func userOf(a account.Account) User {
	roles := make([]string, len(a.Roles))
	for i, r := range a.Roles {
		roles[i] = string(r)
	}
	return User{ID: a.ID, Email: a.Email, Roles: roles}
}

// userInput is the body of POST /users. Roles absent: USER.
type userInput struct {
	Email    string    `json:"email"`
	Password string    `json:"password"`
	Roles    *[]string `json:"roles"`
}

// userChange is the body of PATCH /users/{email}: what changes; absent,
// it stays.
type userChange struct {
	Password *string   `json:"password"`
	Roles    *[]string `json:"roles"`
}

// handleUsers is GET /users: the accounts, in order, without passwords.
func (c *Control) handleUsers(ctx *fiber.Ctx) error {
	all := c.opts.Accounts.All()
	users := make([]User, len(all))
	for i, a := range all {
		users[i] = userOf(a)
	}
	return answer(ctx, http.StatusOK, fiber.Map{"users": users})
}

// handleAddUser is POST /users: a new account, its plain password hashed
// with bcrypt at Options.Cost, its id the next free one (nextAccountID).
// It refuses an invalid email, an email an account has (409, compared
// case-insensitively), an empty or too long password and an unknown role.
func (c *Control) handleAddUser(ctx *fiber.Ctx) error {
	var in userInput
	if err := decodeStrict(ctx.Body(), &in); err != nil {
		return err
	}
	roles := []string{string(account.User)}
	if in.Roles != nil {
		roles = *in.Roles
	}
	a, err := account.CheckAccount(account.Account{Email: in.Email, PasswordHash: placeholderHash, Roles: toRoles(roles)})
	if err != nil {
		return badRequest("invalid user %q: %s", in.Email, describeAccountError(err))
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	if old, ok := c.opts.Accounts.ByEmail(a.Email); ok {
		return &apiError{Status: http.StatusConflict, Code: "conflict", Description: fmt.Sprintf("an account has the email %q already (account %d; emails are compared without regard to case)", old.Email, old.ID)}
	}
	if a.PasswordHash, err = c.hash("password", in.Password); err != nil {
		return err
	}
	a.ID = c.nextAccountID()
	if err := c.opts.Accounts.Replace(append(c.opts.Accounts.All(), a)); err != nil {
		return badRequest("invalid user %q: %s", in.Email, describeAccountError(err))
	}
	said(ctx, "users: added account %d %s %v", a.ID, a.Email, a.Roles)
	return answer(ctx, http.StatusCreated, userOf(a))
}

// handleChangeUser is PATCH /users/{email}: a new password, new roles or
// both. The account's tokens live on.
func (c *Control) handleChangeUser(ctx *fiber.Ctx) error {
	email, err := pathParam(ctx, "email")
	if err != nil {
		return err
	}
	var in userChange
	if err := decodeStrict(ctx.Body(), &in); err != nil {
		return err
	}
	if in.Password == nil && in.Roles == nil {
		return badRequest(`give what changes: "password", "roles" or both`)
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	all, i := c.accountIndex(email)
	if i < 0 {
		return unknownUser(email)
	}
	a := all[i]
	var changed []string
	if in.Roles != nil {
		a.Roles = toRoles(*in.Roles)
	}
	if a, err = account.CheckAccount(a); err != nil {
		return badRequest("invalid user %q: %s", a.Email, describeAccountError(err))
	}
	if in.Roles != nil {
		changed = append(changed, fmt.Sprintf("roles %v", a.Roles))
	}
	if in.Password != nil {
		if a.PasswordHash, err = c.hash("password", *in.Password); err != nil {
			return err
		}
		changed = append(changed, "password")
	}
	all[i] = a
	if err := c.opts.Accounts.Replace(all); err != nil {
		return badRequest("invalid user %q: %s", a.Email, describeAccountError(err))
	}
	said(ctx, "users: changed account %d %s: %s", a.ID, a.Email, strings.Join(changed, ", "))
	return answer(ctx, http.StatusOK, userOf(a))
}

// handleRemoveUser is DELETE /users/{email}: the account goes, and its
// live tokens are revoked. The last account stays (409): a server
// without accounts could issue no token. Its events stay, managed by no
// account.
func (c *Control) handleRemoveUser(ctx *fiber.Ctx) error {
	email, err := pathParam(ctx, "email")
	if err != nil {
		return err
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	all, i := c.accountIndex(email)
	switch {
	case i < 0:
		return unknownUser(email)
	case len(all) == 1:
		return &apiError{Status: http.StatusConflict, Code: "last_account", Description: fmt.Sprintf("%s is the last account: the server keeps at least one (add another first)", all[i].Email)}
	}
	gone := all[i]
	if err := c.opts.Accounts.Replace(slices.Delete(all, i, i+1)); err != nil {
		return fmt.Errorf("remove account %d: %w", gone.ID, err)
	}
	revoked := c.opts.Server.Tokens().Revoke(oauth.Selector{User: gone.Email})
	said(ctx, "users: removed account %d %s, revoked %d tokens", gone.ID, gone.Email, len(revoked))
	return answer(ctx, http.StatusOK, fiber.Map{"removed": userOf(gone), "revokedTokens": len(revoked)})
}

// accountIndex returns the accounts and the index among them of the one
// whose email is email, compared as the registry compares them; -1 when
// none is.
func (c *Control) accountIndex(email string) ([]account.Account, int) {
	all := c.opts.Accounts.All()
	found, ok := c.opts.Accounts.ByEmail(email)
	if !ok {
		return all, -1
	}
	return all, slices.IndexFunc(all, func(a account.Account) bool { return a.ID == found.ID })
}

// nextAccountID is the id of a new account: one more than the highest id
// an account or the manager of an event has, so that a new account never
// becomes the manager of a removed account's events.
func (c *Control) nextAccountID() int64 {
	var top int64
	for _, a := range c.opts.Accounts.All() {
		top = max(top, a.ID)
	}
	for _, e := range c.opts.Events.All() {
		top = max(top, e.ManagerID)
	}
	return top + 1
}

// hash is the stored form of a plain password or secret (what names it),
// hashed at Options.Cost; it refuses an empty or too long one, never
// quoting it.
func (c *Control) hash(what, plain string) (string, error) {
	if plain == "" {
		return "", badRequest("%s must not be empty", what)
	}
	h, err := secret.Hash([]byte(plain), c.opts.Cost)
	switch {
	case errors.Is(err, secret.ErrTooLong):
		return "", badRequest("%s is longer than %d bytes", what, secret.MaxLen)
	case err != nil:
		return "", fmt.Errorf("hash the %s: %w", what, err)
	}
	return h, nil
}

// placeholderHash stands for the password while an account is checked,
// before its password is hashed: bcrypt is paid only for an account that
// passes.
const placeholderHash = "{bcrypt}$2a$04$aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"

// toRoles is roles as account.Roles, unchecked.
func toRoles(roles []string) []account.Role {
	out := make([]account.Role, len(roles))
	for i, r := range roles {
		out[i] = account.Role(r)
	}
	return out
}

// describeAccountError is what a client of the control API reads of an
// account the registry refused.
func describeAccountError(err error) string {
	if errors.Is(err, account.ErrNoRoles) {
		return fmt.Sprintf("roles must name at least one of %s and %s", account.Admin, account.User)
	}
	return err.Error()
}

// unknownUser is the 404 of an email no account has.
func unknownUser(email string) *apiError {
	return &apiError{Status: http.StatusNotFound, Code: "not_found", Description: fmt.Sprintf("no account has the email %q: GET /users lists them", email)}
}

// pathParam is the path parameter name, unescaped.
func pathParam(ctx *fiber.Ctx, name string) (string, error) {
	v, err := url.PathUnescape(ctx.Params(name))
	if err != nil {
		return "", badRequest("the %s in the path is not escaped right: %v", name, err)
	}
	return v, nil
}
