package account

import (
	"errors"
	"testing"
)

// TestReplaceSwapsTheAccountsWholeOrNotAtAll: a replacement is seen by
// every lookup at once; a refused one leaves the accounts as they were.
func TestReplaceSwapsTheAccountsWholeOrNotAtAll(t *testing.T) {
	r, err := NewRegistry(demo())
	if err != nil {
		t.Fatal(err)
	}
	bad := append(demo(), Account{Email: "USER@email.com", PasswordHash: hashes["other"], Roles: []Role{User}})
	if err := r.Replace(bad); !errors.Is(err, ErrDuplicateEmail) {
		t.Fatalf("Replace with a duplicate email = %v", err)
	}
	if r.Len() != 2 {
		t.Fatalf("a refused Replace left %d accounts", r.Len())
	}
	next := []Account{{ID: 7, Email: "new@email.com", PasswordHash: hashes["other"], Roles: []Role{User}}}
	if err := r.Replace(next); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.ByEmail("user@email.com"); ok {
		t.Fatal("a replaced account is still found")
	}
	if _, err := r.Authenticate("user@email.com", "user"); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("a replaced account authenticates: %v", err)
	}
	if a, err := r.Authenticate("NEW@email.com", "other"); err != nil || a.ID != 7 {
		t.Fatalf("the new account: %v %v", a, err)
	}
	all := r.All()
	all[0].Roles[0] = Admin
	if first, ok := r.First(); !ok || first.ID != 7 || first.HasRole(Admin) || len(all) != 1 {
		t.Fatalf("First = %v %v; All shares memory with the registry or has %d accounts", first, ok, len(all))
	}
}

func TestCheckAccountChecksOneAccount(t *testing.T) {
	a, err := CheckAccount(Account{Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{User, User}})
	if err != nil || a.ID != 0 || len(a.Roles) != 1 {
		t.Fatalf("CheckAccount = %v %v", a, err)
	}
	if _, err := CheckAccount(Account{Email: "x@y.z", PasswordHash: hashes["other"], Roles: []Role{"GUEST"}}); !errors.Is(err, ErrUnknownRole) {
		t.Fatalf("an unknown role: %v", err)
	}
	if _, err := CheckAccount(Account{Email: "xy.z", PasswordHash: hashes["other"], Roles: []Role{User}}); !errors.Is(err, ErrInvalidEmail) {
		t.Fatalf("an invalid email: %v", err)
	}
}
