package oauth

import (
	"encoding/base64"
	"testing"

	"eventsvc/server/secret"
)

// BenchmarkClientAuthentication compares checking a client secret with
// bcrypt (at the demo cost, 10) with the verified-credentials cache that
// the token endpoint consults first.
func BenchmarkClientAuthentication(b *testing.B) {
	hash, err := secret.Hash([]byte("pass"), secret.DefaultCost)
	if err != nil {
		b.Fatal(err)
	}
	clients, err := NewClients([]Client{{ID: "app", SecretHash: hash, GrantTypes: []string{GrantPassword}, Scopes: []string{ScopeRead}, ResourceIDs: []string{"event"}}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("bcrypt", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := clients.Authenticate("app", "pass"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		e := &TokenEndpoint{Clients: clients}
		header := "Basic " + base64.StdEncoding.EncodeToString([]byte("app:pass"))
		if _, err := e.authenticateClient("", header); err != nil {
			b.Fatal(err)
		}
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := e.authenticateClient("", header); err != nil {
				b.Fatal(err)
			}
		}
	})
}
