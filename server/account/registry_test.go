package account

import (
	"errors"
	"strings"
	"sync"
	"testing"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server/secret"
)

// hashes holds stored forms of test passwords, made once at bcrypt.MinCost.
var hashes = func() map[string]string {
	m := make(map[string]string)
	for _, p := range []string{"admin", "user", "other"} {
		h, err := secret.Hash([]byte(p), bcrypt.MinCost)
		if err != nil {
			panic(err)
		}
		m[p] = h
	}
	return m
}()

func demo() []Account {
	return []Account{
		{Email: "admin@email.com", PasswordHash: hashes["admin"], Roles: []Role{Admin, User}},
		{Email: "user@email.com", PasswordHash: hashes["user"], Roles: []Role{User}},
	}
}

func TestNewRegistryRefuses(t *testing.T) {
	good := func(email string) Account {
		return Account{Email: email, PasswordHash: hashes["other"], Roles: []Role{User}}
	}
	tests := []struct {
		name     string
		extra    Account // added as account 3
		wantErr  error
		wantText string
	}{
		{name: "duplicate email", extra: good("user@email.com"), wantErr: ErrDuplicateEmail,
			wantText: `account 3 "user@email.com": duplicate email, same as account 2`},
		{name: "duplicate email other case", extra: good("Admin@Email.COM"), wantErr: ErrDuplicateEmail,
			wantText: `account 3 "Admin@Email.COM": duplicate email, same as account 1`},
		{name: "empty email", extra: good(""), wantErr: ErrInvalidEmail, wantText: `account 3 "": invalid email`},
		{name: "no at", extra: good("nobody"), wantErr: ErrInvalidEmail, wantText: `account 3 "nobody": invalid email`},
		{name: "two at", extra: good("a@b@c"), wantErr: ErrInvalidEmail, wantText: `account 3 "a@b@c"`},
		{name: "empty local part", extra: good("@b.c"), wantErr: ErrInvalidEmail, wantText: `account 3 "@b.c"`},
		{name: "whitespace", extra: good("a @b.c"), wantErr: ErrInvalidEmail, wantText: `account 3 "a @b.c"`},
		{name: "too long", extra: good(strings.Repeat("a", 251) + "@b.c"), wantErr: ErrInvalidEmail,
			wantText: `account 3 "` + strings.Repeat("a", 251) + `@b.c": invalid email: longer than 254 bytes`},
		{name: "trailing newline", extra: good("a@b.c\n"), wantErr: ErrInvalidEmail, wantText: `account 3 "a@b.c\n"`},
		{name: "unknown role", extra: Account{Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{User, "GUEST"}},
			wantErr: ErrUnknownRole, wantText: `account 3 "x@y.z": unknown role "GUEST"`},
		{name: "role in lower case", extra: Account{Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{"user"}},
			wantErr: ErrUnknownRole, wantText: `account 3 "x@y.z": unknown role "user"`},
		{name: "no roles", extra: Account{Email: "x@y.z", PasswordHash: hashes["other"]},
			wantErr: ErrNoRoles, wantText: `account 3 "x@y.z": no roles`},
		{name: "noop scheme", extra: Account{Email: "x@y.z", PasswordHash: "{noop}hunter2", Roles: []Role{User}},
			wantErr: secret.ErrUnknownScheme, wantText: `account 3 "x@y.z": password: unknown encoding scheme: scheme {noop}`},
		{name: "no scheme", extra: Account{Email: "x@y.z", PasswordHash: "hunter2", Roles: []Role{User}},
			wantErr: secret.ErrUnknownScheme, wantText: `account 3 "x@y.z": password: unknown encoding scheme`},
		{name: "bare bcrypt hash", extra: Account{Email: "x@y.z", PasswordHash: strings.TrimPrefix(hashes["other"], "{bcrypt}"), Roles: []Role{User}},
			wantErr: secret.ErrUnknownScheme, wantText: `account 3 "x@y.z": password:`},
		{name: "malformed hash", extra: Account{Email: "x@y.z", PasswordHash: "{bcrypt}hunter2", Roles: []Role{User}},
			wantErr: secret.ErrMalformed, wantText: `account 3 "x@y.z": password:`},
		{name: "negative id", extra: Account{ID: -1, Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{User}},
			wantErr: ErrInvalidID, wantText: `account 3 "x@y.z": invalid id -1`},
		{name: "duplicate id", extra: Account{ID: 2, Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{User}},
			wantErr: ErrDuplicateID, wantText: `account 3 "x@y.z": duplicate id 2, same as account 2`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := NewRegistry(append(demo(), tt.extra))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("NewRegistry() = %v, %v; want error %v", r, err, tt.wantErr)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.wantText) {
				t.Errorf("NewRegistry() error = %q, want prefix %q", msg, tt.wantText)
			}
			for _, leak := range []string{"hunter2", "$2a$"} {
				if strings.Contains(msg, leak) {
					t.Errorf("NewRegistry() error = %q, leaks %q", msg, leak)
				}
			}
		})
	}
}

func TestNewRegistryIDs(t *testing.T) {
	accounts := append(demo(), Account{ID: 10, Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{User, User}})
	r, err := NewRegistry(accounts)
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 3 {
		t.Errorf("Len() = %d, want 3", r.Len())
	}
	for id, email := range map[int64]string{1: "admin@email.com", 2: "user@email.com", 10: "x@y.z"} {
		a, ok := r.ByID(id)
		if !ok || a.Email != email {
			t.Errorf("ByID(%d) = %v, %v; want %s", id, a, ok, email)
		}
	}
	if _, ok := r.ByID(3); ok {
		t.Error("ByID(3) found an account")
	}
	if a, _ := r.ByID(10); len(a.Roles) != 1 {
		t.Errorf("roles = %v, want repeats dropped", a.Roles)
	}
	if accounts[0].ID != 0 {
		t.Error("NewRegistry changed its argument")
	}
}

func TestNewRegistryEmpty(t *testing.T) {
	r, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Len() != 0 {
		t.Errorf("Len() = %d", r.Len())
	}
	if _, err := r.Authenticate("a@b.c", "x"); !errors.Is(err, ErrBadCredentials) {
		t.Errorf("Authenticate() = %v, want ErrBadCredentials", err)
	}
}

func TestAuthenticate(t *testing.T) {
	r, err := NewRegistry(demo())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		email    string
		password string
		wantID   int64
		wantErr  error
	}{
		{name: "admin", email: "admin@email.com", password: "admin", wantID: 1},
		{name: "user", email: "user@email.com", password: "user", wantID: 2},
		{name: "email in other case", email: "USER@Email.com", password: "user", wantID: 2},
		{name: "wrong password", email: "user@email.com", password: "admin", wantErr: ErrBadCredentials},
		{name: "password in other case", email: "user@email.com", password: "USER", wantErr: ErrBadCredentials},
		{name: "empty password", email: "user@email.com", password: "", wantErr: ErrBadCredentials},
		{name: "unknown email", email: "nobody@email.com", password: "user", wantErr: ErrBadCredentials},
		{name: "unknown email, dummy password", email: "nobody@email.com", password: dummyPassword, wantErr: ErrBadCredentials},
		{name: "empty email", email: "", password: "", wantErr: ErrBadCredentials},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := r.Authenticate(tt.email, tt.password)
			if tt.wantErr != nil {
				if err != tt.wantErr {
					t.Fatalf("Authenticate() = %v, %v; want exactly %v", a, err, tt.wantErr)
				}
				if a.ID != 0 || a.Email != "" {
					t.Errorf("Authenticate() = %v on error, want zero", a)
				}
				return
			}
			if err != nil {
				t.Fatalf("Authenticate() error = %v", err)
			}
			if a.ID != tt.wantID {
				t.Errorf("Authenticate() = %v, want id %d", a, tt.wantID)
			}
		})
	}
}

func TestRegistryReturnsCopies(t *testing.T) {
	r, err := NewRegistry(demo())
	if err != nil {
		t.Fatal(err)
	}
	a, _ := r.ByEmail("Admin@email.com")
	a.Roles[0] = "HACKED"
	b, _ := r.Authenticate("admin@email.com", "admin")
	b.Roles[0] = "HACKED"
	c, ok := r.ByID(1)
	if !ok || c.Roles[0] != Admin {
		t.Errorf("ByID(1) = %v, want roles unchanged", c)
	}
	if !c.HasRole(Admin) || !c.HasRole(User) || c.HasRole("HACKED") {
		t.Errorf("HasRole on %v", c)
	}
	if _, ok := r.ByEmail("nobody@email.com"); ok {
		t.Error("ByEmail(unknown) found an account")
	}
}

func TestRegistryConcurrent(t *testing.T) {
	r, err := NewRegistry(demo())
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if _, err := r.Authenticate("user@email.com", "user"); err != nil {
				t.Error(err)
			}
			r.ByEmail("admin@email.com")
			r.ByID(1)
		})
	}
	wg.Wait()
}
