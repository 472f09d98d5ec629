package oauth

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"sync"
)

// maxVerifiedClients bounds how many client credentials the token endpoint
// remembers as verified; past it the oldest is forgotten, and pays bcrypt
// again on its next use.
const maxVerifiedClients = 1024

// verifiedClients remembers client credentials that passed bcrypt, so that
// bcrypt is paid once per client. It keys them by HMAC-SHA-256 of id and
// secret under a random key made when it is first used (never the secret,
// nor a plain digest of it, which a memory dump would let one guess
// offline at the speed of SHA-256), and holds at most maxVerifiedClients
// of them. Only successes are kept. The zero value is ready to use and
// safe for concurrent use.
type verifiedClients struct {
	once sync.Once
	key  []byte

	mu      sync.RWMutex
	clients map[[sha256.Size]byte]Client
	order   [][sha256.Size]byte // oldest first
}

// keyOf is the key of id and secret.
func (v *verifiedClients) keyOf(id, secret string) [sha256.Size]byte {
	v.once.Do(func() {
		v.key = make([]byte, sha256.Size)
		_, _ = rand.Read(v.key) // never fails (crypto/rand)
	})
	m := hmac.New(sha256.New, v.key)
	// The id's length first, so that no other id and secret run together
	// into the same bytes.
	m.Write(binary.BigEndian.AppendUint64(nil, uint64(len(id))))
	m.Write([]byte(id))
	m.Write([]byte(secret))
	var k [sha256.Size]byte
	m.Sum(k[:0])
	return k
}

// load returns the client whose id and secret passed bcrypt before, if
// they did and are still remembered.
func (v *verifiedClients) load(id, secret string) (Client, bool) {
	k := v.keyOf(id, secret)
	v.mu.RLock()
	defer v.mu.RUnlock()
	c, ok := v.clients[k]
	if !ok {
		return Client{}, false
	}
	return c.clone(), true
}

// store remembers that id and secret passed bcrypt as client c, in place
// of what it remembered of them before.
func (v *verifiedClients) store(id, secret string, c Client) {
	k := v.keyOf(id, secret)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.clients == nil {
		v.clients = map[[sha256.Size]byte]Client{}
	}
	if _, ok := v.clients[k]; ok {
		// The same id and secret passed against another registration
		// (its secret replaced, then given back): keep the new one.
		v.clients[k] = c.clone()
		return
	}
	if len(v.order) >= maxVerifiedClients {
		delete(v.clients, v.order[0])
		v.order = v.order[1:]
	}
	v.clients[k] = c.clone()
	v.order = append(v.order, k)
}

// len is how many credentials are remembered.
func (v *verifiedClients) len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.clients)
}
