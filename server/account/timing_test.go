package account

import (
	"fmt"
	"testing"

	"eventsvc/server/secret"
)

// mixedCosts are accounts whose passwords are stored at different bcrypt
// costs, the cheapest first.
func mixedCosts(t testing.TB) []Account {
	t.Helper()
	var accounts []Account
	for i, cost := range []int{4, 7, 5} {
		h, err := secret.Hash([]byte("pw"), cost)
		if err != nil {
			t.Fatal(err)
		}
		accounts = append(accounts, Account{Email: fmt.Sprintf("cost%d-%d@example.com", cost, i), PasswordHash: h, Roles: []Role{User}})
	}
	return accounts
}

// An unknown email costs the dearest account's bcrypt, so that timing
// cannot tell an unknown email from an account with the highest cost; with
// the first account's cost, it could.
func TestTheDummyHashHasTheHighestCost(t *testing.T) {
	r, err := NewRegistry(mixedCosts(t))
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := secret.Cost(r.set.Dummy().Stored); err != nil || cost != 7 {
		t.Fatalf("the dummy hash has cost %d (%v), want 7, the highest of 4, 7, 5", cost, err)
	}
	empty, err := NewRegistry(nil)
	if err != nil {
		t.Fatal(err)
	}
	if cost, _ := secret.Cost(empty.set.Dummy().Stored); cost != secret.DefaultCost {
		t.Fatalf("with no account the dummy hash has cost %d, want %d", cost, secret.DefaultCost)
	}
}

// BenchmarkAuthenticateMixedCosts prints the time of a failed login for an
// unknown email and for each account, whose costs are 4, 7 and 5: the
// unknown email takes as long as the cost-7 account.
func BenchmarkAuthenticateMixedCosts(b *testing.B) {
	accounts := mixedCosts(b)
	r, err := NewRegistry(accounts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unknown", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = r.Authenticate("nobody@example.com", "wrong")
		}
	})
	for _, a := range accounts {
		b.Run(a.Email, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_, _ = r.Authenticate(a.Email, "wrong")
			}
		})
	}
}
