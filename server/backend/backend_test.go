package backend

import (
	"errors"
	"fmt"
	"io"
	"testing"
)

func TestAnErrorIsUnavailableAndKeepsItsCause(t *testing.T) {
	err := fmt.Errorf("read event: %w", Unavailable("postgresql (events)", "select", io.ErrUnexpectedEOF))
	if !errors.Is(err, ErrUnavailable) {
		t.Error("not ErrUnavailable")
	}
	if !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Error("the cause is lost")
	}
	if got := Name(err); got != "postgresql (events)" {
		t.Errorf("Name = %q", got)
	}
	if Name(io.EOF) != "" || errors.Is(io.EOF, ErrUnavailable) {
		t.Error("another error is taken for a backend's")
	}
	want := "postgresql (events) unavailable: select: unexpected EOF"
	if got := errors.Unwrap(err).Error(); got != want {
		t.Errorf("message %q, want %q", got, want)
	}
}
