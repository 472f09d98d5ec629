package account

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseRole(t *testing.T) {
	tests := []struct {
		in      string
		want    Role
		wantErr bool
	}{
		{in: "ADMIN", want: Admin},
		{in: "USER", want: User},
		{in: "admin", wantErr: true},
		{in: "User", wantErr: true},
		{in: "ROLE_USER", wantErr: true},
		{in: " USER", wantErr: true},
		{in: "", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			got, err := ParseRole(tt.in)
			if tt.wantErr {
				if !errors.Is(err, ErrUnknownRole) {
					t.Fatalf("ParseRole(%q) error = %v, want ErrUnknownRole", tt.in, err)
				}
				if !strings.Contains(err.Error(), fmt.Sprintf("%q", tt.in)) {
					t.Errorf("ParseRole(%q) error = %q, want it to name the role", tt.in, err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ParseRole(%q) = %q, %v, want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func TestAccountFormatHidesHash(t *testing.T) {
	const hash = "{bcrypt}$2a$04$ISBArDavO2vhc5KfBN5kjeACRNMmxFFzy/ougP3oauGxMzwQfIcDS"
	a := Account{ID: 7, Email: "a@b.c", PasswordHash: hash, Roles: []Role{Admin, User}}
	if got, want := a.String(), "account 7 a@b.c [ADMIN USER]"; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%d", "%x", "%10v", "%T %v"} {
		for _, v := range []any{a, &a, []Account{a}, struct{ A Account }{a}} {
			got := fmt.Sprintf(verb, v)
			if strings.Contains(got, "$2a$") || strings.Contains(got, "bcrypt") ||
				strings.Contains(got, fmt.Sprintf("%x", "$2a$")) {
				t.Errorf("Sprintf(%q, %T) = %q, shows the hash", verb, v, got)
			}
		}
	}
	if got := fmt.Sprintf("%#v", a); !strings.Contains(got, `Email:"a@b.c"`) || !strings.Contains(got, "REDACTED") {
		t.Errorf("%%#v = %q, want the email and a redacted hash", got)
	}
}
