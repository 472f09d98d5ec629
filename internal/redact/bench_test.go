package redact

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkString masks a transcript of 4 KB (links with queries, escapes
// and percent-encoding in it) with a Redactor that knows a run's three
// secrets, then also the tokens of 500 grants, as an exploration's does.
func BenchmarkString(b *testing.B) {
	var text strings.Builder
	for text.Len() < 4096 {
		text.WriteString(`{"href":"http://127.0.0.1:8080/api/events?page=2&size=20","name":"Tom \u0026 Jerry","q":"a%20b"},`)
	}
	s := text.String()
	r := New(hostileSecrets...)
	b.Run("3 secrets", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			r.String(s)
		}
	})
	for i := range 1000 {
		sum := sha256.Sum256([]byte(fmt.Sprint(i)))
		r.Add(base64.RawURLEncoding.EncodeToString(sum[:]))
	}
	b.Run("1003 secrets", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			r.String(s)
		}
	})
	// The demo passwords are short: masked where a field of a secret's
	// name holds them, which text seldom has.
	r.Add("user")
	r.Add("admin")
	b.Run("1003 secrets and 2 short ones", func(b *testing.B) {
		b.SetBytes(int64(len(s)))
		for b.Loop() {
			r.String(s)
		}
	})
}
