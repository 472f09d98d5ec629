package oauth

import (
	"errors"
	"testing"
	"time"

	"eventsvc/server/clock"
	"eventsvc/server/throttle"
)

// Every request spends the budget of its address before anything else,
// and credentials that must be checked both form-decoded and as sent spend
// one more unit, for their second bcrypt; past the budget, too_many_attempts
// with a Retry-After of whole seconds.
func TestTheBudgetIsSpentPerRequestAndPerSecondCheck(t *testing.T) {
	e := testEndpoint(t, "s3cret")
	c := clock.NewManual(time.Unix(0, 0))
	e.Budget = throttle.NewBudget(throttle.BudgetLimits{Rate: 0.5, Burst: 3, MaxKeys: 10}, c)
	// "a+b" decodes to "a b": two checks, two units plus the request's.
	if _, err := e.ExchangeFrom("10.0.0.1", basicHeader("a+b:x"), formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidClient) {
		t.Fatalf("unknown client a+b: %v", err)
	}
	if _, err := e.ExchangeFrom("10.0.0.1", basicHeader("nobody:x"), formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidClient) {
		t.Fatalf("unknown client nobody: %v", err)
	}
	_, err := e.ExchangeFrom("10.0.0.1", basicHeader("nobody:x"), formMediaType, []byte(passwordGrant))
	var oe *Error
	if !errors.As(err, &oe) || !errors.Is(err, ErrTooManyAttempts) || oe.RetryAfter != 2*time.Second {
		t.Fatalf("past the budget: %v, want too_many_attempts retry in 2s", err)
	}
	if _, err := e.ExchangeFrom("10.0.0.2", basicHeader("nobody:x"), formMediaType, []byte(passwordGrant)); !errors.Is(err, ErrInvalidClient) {
		t.Fatalf("another address: %v", err)
	}
}
