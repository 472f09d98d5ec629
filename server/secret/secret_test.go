package secret

import (
	"errors"
	"strings"
	"testing"

	"golang.org/x/crypto/bcrypt"
)

func TestHash(t *testing.T) {
	tests := []struct {
		name    string
		plain   []byte
		cost    int
		wantErr error
	}{
		{name: "ok", plain: []byte("pass"), cost: bcrypt.MinCost},
		{name: "72 bytes", plain: []byte(strings.Repeat("a", MaxLen)), cost: bcrypt.MinCost},
		{name: "empty", plain: nil, cost: bcrypt.MinCost, wantErr: ErrEmpty},
		{name: "73 bytes", plain: []byte(strings.Repeat("a", MaxLen+1)), cost: bcrypt.MinCost, wantErr: ErrTooLong},
		{name: "cost too low", plain: []byte("pass"), cost: bcrypt.MinCost - 1, wantErr: bcrypt.InvalidCostError(bcrypt.MinCost - 1)},
		{name: "cost too high", plain: []byte("pass"), cost: bcrypt.MaxCost + 1, wantErr: bcrypt.InvalidCostError(bcrypt.MaxCost + 1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stored, err := Hash(tt.plain, tt.cost)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) {
					t.Fatalf("Hash() error = %v, want %v", err, tt.wantErr)
				}
				if stored != "" {
					t.Errorf("Hash() = %q on error, want empty", stored)
				}
				return
			}
			if err != nil {
				t.Fatalf("Hash() error = %v", err)
			}
			if !strings.HasPrefix(stored, "{bcrypt}$2a$") {
				t.Errorf("Hash() = %q, want {bcrypt}$2a$ prefix", stored)
			}
			if err := Validate(stored); err != nil {
				t.Errorf("Validate(Hash()) = %v", err)
			}
			if err := Check(stored, string(tt.plain)); err != nil {
				t.Errorf("Check(Hash(), plain) = %v", err)
			}
			if cost, err := Cost(stored); err != nil || cost != tt.cost {
				t.Errorf("Cost(Hash()) = %d, %v, want %d", cost, err, tt.cost)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	good := mustHash(t, "pass")
	bare := strings.TrimPrefix(good, "{bcrypt}")
	tests := []struct {
		name     string
		stored   string
		wantErr  error
		wantText string // a part the message must contain
	}{
		{name: "ok", stored: good},
		{name: "no minor version", stored: "{bcrypt}$2$" + bare[4:]},
		{name: "empty", stored: "", wantErr: ErrUnknownScheme, wantText: "no {scheme} marker"},
		{name: "no marker", stored: "pass", wantErr: ErrUnknownScheme, wantText: "no {scheme} marker"},
		{name: "bare bcrypt hash", stored: bare, wantErr: ErrUnknownScheme, wantText: "no {scheme} marker"},
		{name: "noop", stored: "{noop}pass", wantErr: ErrUnknownScheme, wantText: "{noop}"},
		{name: "sha256", stored: "{sha256}" + strings.Repeat("ab", 32), wantErr: ErrUnknownScheme, wantText: "{sha256}"},
		{name: "upper case", stored: "{BCRYPT}" + bare, wantErr: ErrUnknownScheme, wantText: "{BCRYPT}"},
		{name: "empty marker", stored: "{}" + bare, wantErr: ErrUnknownScheme, wantText: "empty {} marker"},
		{name: "odd marker", stored: "{hunter2 x}" + bare, wantErr: ErrUnknownScheme, wantText: "unrecognized"},
		{name: "unterminated", stored: "{bcrypt" + bare, wantErr: ErrMalformed, wantText: "unterminated"},
		{name: "empty hash", stored: "{bcrypt}", wantErr: ErrMalformed, wantText: "empty hash"},
		{name: "plain text after marker", stored: "{bcrypt}pass", wantErr: ErrMalformed, wantText: "not a valid bcrypt hash"},
		{name: "truncated", stored: good[:len(good)-1], wantErr: ErrMalformed},
		{name: "trailing newline", stored: good + "\n", wantErr: ErrMalformed},
		{name: "bad cost", stored: "{bcrypt}$2a$99$" + bare[7:], wantErr: ErrMalformed},
		{name: "bad alphabet", stored: good[:len(good)-1] + "!", wantErr: ErrMalformed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.stored)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Validate() = %v, want %v", err, tt.wantErr)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.wantText) {
				t.Errorf("Validate() = %q, want it to contain %q", msg, tt.wantText)
			}
			for _, leak := range []string{"pass", "hunter2", bare[7:20]} {
				if strings.Contains(msg, leak) {
					t.Errorf("Validate() = %q, leaks %q", msg, leak)
				}
			}
			// Check gives the same verdict on a bad stored form.
			if err := Check(tt.stored, "pass"); !errors.Is(err, tt.wantErr) {
				t.Errorf("Check() = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func TestCheck(t *testing.T) {
	long := strings.Repeat("a", MaxLen)
	stored := mustHash(t, "pass")
	storedLong := mustHash(t, long)
	tests := []struct {
		name    string
		stored  string
		plain   string
		wantErr error
	}{
		{name: "match", stored: stored, plain: "pass"},
		{name: "mismatch", stored: stored, plain: "Pass", wantErr: ErrMismatch},
		{name: "empty plain", stored: stored, plain: "", wantErr: ErrMismatch},
		{name: "prefix", stored: stored, plain: "pas", wantErr: ErrMismatch},
		{name: "72 bytes", stored: storedLong, plain: long},
		{name: "past 72 bytes", stored: storedLong, plain: long + "b", wantErr: ErrMismatch},
		{name: "bad stored", stored: "{noop}pass", plain: "pass", wantErr: ErrUnknownScheme},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.stored, tt.plain)
			if tt.wantErr == nil {
				if err != nil {
					t.Fatalf("Check() = %v, want nil", err)
				}
				return
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Check() = %v, want %v", err, tt.wantErr)
			}
		})
	}
}

func mustHash(t *testing.T, plain string) string {
	t.Helper()
	stored, err := Hash([]byte(plain), bcrypt.MinCost)
	if err != nil {
		t.Fatal(err)
	}
	return stored
}

// TestNewDummyCostsAsTheDearestAndIsKeptAtThatCost: the dummy is stored at
// the highest cost of the secrets, DefaultCost for none; a dummy already
// at that cost is kept, one at another is replaced.
func TestNewDummyCostsAsTheDearestAndIsKeptAtThatCost(t *testing.T) {
	cheap, err := Hash([]byte("a"), 4)
	if err != nil {
		t.Fatal(err)
	}
	dear, err := Hash([]byte("b"), 5)
	if err != nil {
		t.Fatal(err)
	}
	d, err := NewDummy("nobody's", []string{cheap, dear, cheap}, Dummy{})
	if err != nil || d.Cost != 5 {
		t.Fatalf("NewDummy = %+v, %v; want cost 5", d, err)
	}
	if c, err := Cost(d.Stored); err != nil || c != 5 || Check(d.Stored, "nobody's") != nil {
		t.Errorf("the dummy %q: cost %d, %v; want the plain text stored at cost 5", d.Stored, c, err)
	}
	if again, err := NewDummy("nobody's", []string{dear}, d); err != nil || again != d {
		t.Errorf("NewDummy at the same cost = %+v, %v; want the old one kept", again, err)
	}
	if other, err := NewDummy("nobody's", []string{cheap}, d); err != nil || other.Cost != 4 || other.Stored == d.Stored {
		t.Errorf("NewDummy at another cost = %+v, %v; want a new one at cost 4", other, err)
	}
	if _, err := NewDummy("nobody's", []string{"{noop}x"}, Dummy{}); !errors.Is(err, ErrUnknownScheme) {
		t.Errorf("NewDummy of a secret that does not parse: %v, want ErrUnknownScheme", err)
	}
}
