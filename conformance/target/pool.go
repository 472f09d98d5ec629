package target

import (
	"sync"
	"time"
)

// Pool shares the access tokens of the run's accounts among the scenarios
// of one run against a deployment, by the target's base address, so that a
// scenario that only needs to act as the user (read, create, update) does
// not ask for a token of its own: a run asks for two rather than one for
// each scenario, which spares the target's budget of token requests and
// the run's time. It is safe for concurrent use.
//
// A pooled token serves only as an access token: no scenario ever sees its
// refresh token, so none can revoke it by refreshing. A scenario that
// refreshes, that looks at a token's life, or that looks at the cookies
// answers set (those of a token response are its own to see) holds tokens
// of its own (scenario.ownToken). The pool keeps the names of the cookies
// the answer that gave a token set, for the scenarios that put the token
// in every cookie the target named. A token is asked for again once half its life has
// passed, and the pool forgets every token when the target's clock moves.
type Pool struct {
	mu     sync.Mutex
	tokens map[string]pooled
}

// pooled is one token of the pool.
type pooled struct {
	access  string
	cookies []string  // the names of the cookies the scenario that took it had been set
	until   time.Time // when the pool asks for another
}

// Get returns the pool's token of holder at base, if it has one still
// young enough, and the names of the cookies the answer that gave it set.
func (p *Pool) Get(base, holder string) (access string, cookies []string, ok bool) {
	t, ok := p.get(base, holder)
	return t.access, t.cookies, ok
}

func (p *Pool) get(base, holder string) (pooled, bool) {
	if p == nil {
		return pooled{}, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	t, ok := p.tokens[base+" "+holder]
	if !ok || !time.Now().Before(t.until) {
		return pooled{}, false
	}
	return t, true
}

// Put offers the access token of holder at base, issued now for
// expiresIn seconds, to the other scenarios.
func (p *Pool) Put(base, holder, access string, expiresIn int64, cookies []string) {
	if p == nil || access == "" || expiresIn <= 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tokens == nil {
		p.tokens = map[string]pooled{}
	}
	p.tokens[base+" "+holder] = pooled{access: access, cookies: cookies, until: time.Now().Add(time.Duration(expiresIn) * time.Second / 2)}
}

// Forget drops every token of the pool: the target's clock has moved.
func (p *Pool) Forget() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.tokens = nil
}
