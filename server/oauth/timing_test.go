package oauth

import (
	"fmt"
	"testing"

	"eventsvc/server/secret"
)

// mixedCostClients are clients whose secrets are stored at different bcrypt
// costs, the cheapest first.
func mixedCostClients(t testing.TB) []Client {
	t.Helper()
	var clients []Client
	for i, cost := range []int{4, 7, 5} {
		h, err := secret.Hash([]byte("s3cret"), cost)
		if err != nil {
			t.Fatal(err)
		}
		clients = append(clients, Client{ID: fmt.Sprintf("cost%d-%d", cost, i), SecretHash: h,
			GrantTypes: []string{GrantPassword}, Scopes: []string{ScopeRead}, ResourceIDs: []string{"event"}})
	}
	return clients
}

// An unknown client id costs the dearest client's bcrypt, so that timing
// cannot tell it from a client with the highest cost.
func TestTheClientDummyHashHasTheHighestCost(t *testing.T) {
	r, err := NewClients(mixedCostClients(t))
	if err != nil {
		t.Fatal(err)
	}
	if cost, err := secret.Cost(r.set.Dummy().Stored); err != nil || cost != 7 {
		t.Fatalf("the dummy hash has cost %d (%v), want 7, the highest of 4, 7, 5", cost, err)
	}
}

// BenchmarkClientAuthenticateMixedCosts prints the time of a failed client
// authentication for an unknown id and for each client, whose costs are
// 4, 7 and 5: the unknown id takes as long as the cost-7 client.
func BenchmarkClientAuthenticateMixedCosts(b *testing.B) {
	clients := mixedCostClients(b)
	r, err := NewClients(clients)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("unknown", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			_, _ = r.Authenticate("nobody", "wrong")
		}
	})
	for _, c := range clients {
		b.Run(c.ID, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				_, _ = r.Authenticate(c.ID, "wrong")
			}
		})
	}
}
