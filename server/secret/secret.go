// Package secret encodes and checks stored passwords and client secrets.
//
// A stored secret carries a marker naming its encoding scheme, in the manner
// of Spring Security's DelegatingPasswordEncoder: "{bcrypt}$2a$10$...". Only
// the bcrypt scheme is known; any other stored form is refused.
package secret

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/bcrypt"
)

// DefaultCost is the bcrypt cost used when no other is asked for.
const DefaultCost = bcrypt.DefaultCost

// MaxLen is the longest plain text, in bytes, that bcrypt takes into account.
const MaxLen = 72

// scheme is the only known encoding scheme.
const scheme = "bcrypt"

// marker prefixes every stored secret of the known scheme.
const marker = "{" + scheme + "}"

// Sentinel errors, for errors.Is.
var (
	// ErrUnknownScheme reports a stored secret without a known {scheme} marker.
	ErrUnknownScheme = errors.New("unknown encoding scheme")
	// ErrMalformed reports a stored secret whose marker is known but whose
	// encoded value is not usable.
	ErrMalformed = errors.New("malformed encoded secret")
	// ErrMismatch reports a plain text that does not match the stored secret.
	ErrMismatch = errors.New("secret does not match")
	// ErrEmpty reports an empty plain text given to Hash.
	ErrEmpty = errors.New("empty secret")
	// ErrTooLong reports a plain text longer than MaxLen bytes given to Hash.
	ErrTooLong = fmt.Errorf("secret longer than %d bytes", MaxLen)
)

// Hash encodes plain with bcrypt at the given cost and returns the stored
// form, "{bcrypt}" followed by the bcrypt hash. It refuses an empty plain
// text, one longer than MaxLen bytes, and a cost outside bcrypt's range.
func Hash(plain []byte, cost int) (string, error) {
	switch {
	case len(plain) == 0:
		return "", fmt.Errorf("hash secret: %w", ErrEmpty)
	case len(plain) > MaxLen:
		return "", fmt.Errorf("hash secret: %w (bcrypt ignores the rest)", ErrTooLong)
	case cost < bcrypt.MinCost || cost > bcrypt.MaxCost:
		return "", fmt.Errorf("hash secret: %w", bcrypt.InvalidCostError(cost))
	}
	h, err := bcrypt.GenerateFromPassword(plain, cost)
	if err != nil {
		return "", fmt.Errorf("hash secret: %w", err)
	}
	return marker + string(h), nil
}

// Validate reports whether stored is a usable stored secret: a known
// {scheme} marker followed by a well-formed hash of that scheme. The error
// wraps ErrUnknownScheme or ErrMalformed and names the scheme found; it never
// contains the stored value itself.
func Validate(stored string) error {
	_, err := parse(stored)
	return err
}

// Check compares plain with the stored secret. It returns nil when they
// match, an error wrapping ErrMismatch when they do not, and the error of
// Validate when stored is not usable.
func Check(stored, plain string) error {
	h, err := parse(stored)
	if err != nil {
		return err
	}
	if len(plain) > MaxLen {
		// bcrypt would ignore the bytes past MaxLen; Hash never accepts such
		// a plain text, so it cannot be the one stored.
		return ErrMismatch
	}
	err = bcrypt.CompareHashAndPassword(h, []byte(plain))
	switch {
	case err == nil:
		return nil
	case errors.Is(err, bcrypt.ErrMismatchedHashAndPassword):
		return ErrMismatch
	default:
		return fmt.Errorf("%w: %s value is not a valid bcrypt hash", ErrMalformed, marker)
	}
}

// Cost returns the bcrypt cost of a stored secret, or the error of Validate.
func Cost(stored string) (int, error) {
	h, err := parse(stored)
	if err != nil {
		return 0, err
	}
	return bcrypt.Cost(h)
}

// Dummy is the stored form of a secret no one knows, at the cost of the
// dearest of a set of stored secrets: a name not in the set is checked
// against it, so that it takes as long as any known name's wrong secret,
// never less.
type Dummy struct {
	// Stored is its stored form; empty in a zero Dummy.
	Stored string
	// Cost is its bcrypt cost.
	Cost int
}

// NewDummy returns the dummy of plain for the stored secrets, each one
// Validate accepts: plain stored at the highest cost among them
// (DefaultCost when there are none), or old when it has that cost
// already, which spares a hash.
func NewDummy(plain string, stored []string, old Dummy) (Dummy, error) {
	cost := DefaultCost
	for i, s := range stored {
		c, err := Cost(s)
		if err != nil {
			return Dummy{}, fmt.Errorf("secret %d: %w", i+1, err)
		}
		if i == 0 || c > cost {
			cost = c
		}
	}
	if old.Stored != "" && old.Cost == cost {
		return old, nil
	}
	h, err := Hash([]byte(plain), cost)
	if err != nil {
		return Dummy{}, err
	}
	return Dummy{Stored: h, Cost: cost}, nil
}

// parse checks stored and returns its bcrypt hash. Its errors never quote
// the stored value: only a scheme name that looks like one.
func parse(stored string) ([]byte, error) {
	if !strings.HasPrefix(stored, "{") {
		return nil, fmt.Errorf("%w: no {scheme} marker, expected %s", ErrUnknownScheme, marker)
	}
	end := strings.IndexByte(stored, '}')
	if end < 0 {
		return nil, fmt.Errorf("%w: unterminated {scheme} marker", ErrMalformed)
	}
	name, h := stored[1:end], stored[end+1:]
	if name != scheme {
		return nil, fmt.Errorf("%w: %s, expected %s", ErrUnknownScheme, describe(name), marker)
	}
	if h == "" {
		return nil, fmt.Errorf("%w: %s with an empty hash", ErrMalformed, marker)
	}
	// bcrypt's own errors may quote a byte of the value, so they are not
	// passed on.
	if _, err := bcrypt.Cost([]byte(h)); err != nil || len(h) != hashLen(h) || !encoded(h[len(h)-53:]) {
		return nil, fmt.Errorf("%w: %s value is not a valid bcrypt hash", ErrMalformed, marker)
	}
	return []byte(h), nil
}

// hashLen is the length of a well-formed bcrypt hash with the version prefix
// of h, which bcrypt.Cost has accepted: "$2a$10$" or "$2$10$", then 22
// characters of salt and 31 of hash.
func hashLen(h string) int {
	if h[2] == '$' {
		return 59
	}
	return 60
}

// encoded reports whether s holds only characters of bcrypt's base64
// alphabet.
func encoded(s string) bool {
	for _, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '/'
		if !ok {
			return false
		}
	}
	return true
}

// describe names a scheme for an error message: quoted in its marker when it
// looks like a scheme name, and not quoted at all otherwise, as the text
// between the braces might be a secret typed in the wrong place.
func describe(name string) string {
	if name == "" {
		return "empty {} marker"
	}
	if len(name) > 32 {
		return "unrecognized {scheme} marker"
	}
	for _, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' ||
			r == '-' || r == '_' || r == '.' || r == '@'
		if !ok {
			return "unrecognized {scheme} marker"
		}
	}
	return fmt.Sprintf("scheme {%s}", name)
}
