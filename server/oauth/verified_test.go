package oauth

import (
	"crypto/sha256"
	"fmt"
	"testing"
)

// TestVerifiedClientsAreKeyedByHMACUnderAKeyOfTheirOwn: the keys of the
// cache of verified client credentials are no plain digest of id and
// secret, which a memory dump would let one guess offline, but an
// HMAC-SHA-256 under a random key of each cache.
func TestVerifiedClientsAreKeyedByHMACUnderAKeyOfTheirOwn(t *testing.T) {
	var a, b verifiedClients
	ka, kb := a.keyOf("app", "pass"), b.keyOf("app", "pass")
	if ka == kb {
		t.Errorf("two caches key the same credentials alike: the key is not random")
	}
	for name, plain := range map[string][sha256.Size]byte{
		"SHA-256 of id NUL secret": sha256.Sum256([]byte("app\x00pass")),
		"SHA-256 of id:secret":     sha256.Sum256([]byte("app:pass")),
	} {
		if ka == plain {
			t.Errorf("the key is the %s", name)
		}
	}
	if ka != a.keyOf("app", "pass") {
		t.Errorf("one cache keys the same credentials differently")
	}
	if a.keyOf("app", "pass") == a.keyOf("ap", "ppass") || a.keyOf("app", "pass") == a.keyOf("app", "pas") {
		t.Errorf("different credentials share a key")
	}
}

// TestVerifiedClientsHoldABoundedNumber: past maxVerifiedClients entries
// the oldest is forgotten (and will pay bcrypt again).
func TestVerifiedClientsHoldABoundedNumber(t *testing.T) {
	var v verifiedClients
	for i := range maxVerifiedClients + 10 {
		id := fmt.Sprintf("app%d", i)
		v.store(id, "secret", Client{ID: id})
	}
	if n := v.len(); n != maxVerifiedClients {
		t.Errorf("%d entries, want at most %d", n, maxVerifiedClients)
	}
	if _, ok := v.load("app0", "secret"); ok {
		t.Errorf("the oldest entry is still there")
	}
	last := fmt.Sprintf("app%d", maxVerifiedClients+9)
	if c, ok := v.load(last, "secret"); !ok || c.ID != last {
		t.Errorf("the newest entry is missing: %v %v", c, ok)
	}
	if _, ok := v.load(last, "other"); ok {
		t.Errorf("a wrong secret is found")
	}
	// Storing the same credentials again adds nothing.
	v.store(last, "secret", Client{ID: last})
	if n := v.len(); n != maxVerifiedClients {
		t.Errorf("%d entries after storing one again, want %d", n, maxVerifiedClients)
	}
}
