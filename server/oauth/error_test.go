package oauth

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorIsComparesCodes(t *testing.T) {
	err := fmt.Errorf("password grant: %w", ErrInvalidGrant.WithDescription("bad credentials"))
	if !errors.Is(err, ErrInvalidGrant) {
		t.Fatalf("errors.Is(%v, ErrInvalidGrant) = false", err)
	}
	if errors.Is(err, ErrInvalidClient) {
		t.Fatalf("errors.Is(%v, ErrInvalidClient) = true", err)
	}
}

func TestWithDescriptionLeavesTheSentinelAlone(t *testing.T) {
	d := ErrInvalidRequest.WithDescription("missing parameter %q", "username")
	if d.Description != `missing parameter "username"` || d.Status != 400 {
		t.Fatalf("got %+v", d)
	}
	if ErrInvalidRequest.Description != "" {
		t.Fatalf("sentinel changed: %+v", ErrInvalidRequest)
	}
	if got, want := d.Error(), `invalid_request: missing parameter "username"`; got != want {
		t.Fatalf("Error() = %q, want %q", got, want)
	}
}
