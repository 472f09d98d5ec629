// Package backend names what the reference server keeps outside its own
// process (a Redis for tokens and lockouts, a PostgreSQL for events), the
// error of one that cannot be reached, and how to ask whether one can.
package backend

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// ErrUnavailable reports a backend that cannot be reached, or did not
// answer in time: the request that needed it cannot be served now, and may
// be tried again. errors.Is(err, ErrUnavailable) is true of every *Error.
var ErrUnavailable = errors.New("backend unavailable")

// Error is the failure of one backend to answer an operation.
type Error struct {
	// Backend names the backend as an operator knows it, such as
	// "redis (tokens)" or "postgresql (events)".
	Backend string
	// Op says what was asked, such as "read access token".
	Op string
	// Err is the cause.
	Err error
}

// Unavailable returns an *Error of backend for op, caused by err.
func Unavailable(backend, op string, err error) error {
	return &Error{Backend: backend, Op: op, Err: err}
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%s unavailable: %s: %v", e.Backend, e.Op, e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// Is makes every *Error an ErrUnavailable.
func (e *Error) Is(target error) bool { return target == ErrUnavailable }

// Name returns the backend of the first *Error in err's chain, or "" when
// there is none.
func Name(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Backend
	}
	return ""
}

// Checker is a backend that can be asked whether it answers.
type Checker interface {
	// Name names the backend, as in Error.Backend.
	Name() string
	// Ping returns nil when the backend answers before ctx ends.
	Ping(ctx context.Context) error
}

// DefaultTimeout is how long the server waits for a backend, by default,
// before it answers 503.
const DefaultTimeout = 2 * time.Second
