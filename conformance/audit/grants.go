package audit

import (
	"maps"
	"sync"
)

// grantsSeen are the password grants of a whole run, whichever of its
// worlds saw them (a scenario's, a sequence's, a replay's): two answered
// at the same moment, in any of them, may mix up whom their tokens act
// for on a target that keeps the user it is logging in where another
// login overwrites it. It holds, of each access token, the accounts that
// stood beside its grant: those whose grants met it, and those its own
// form named too.
type grantsSeen struct {
	mu     sync.Mutex
	recent []grantSeen                  // the last maxGrantsSeen password grants
	beside map[string]map[string]string // access token → account → how it stood beside
}

// grantSeen is a password grant answered with an access token for an
// account, sent and answered during when (real time).
type grantSeen struct {
	target, access, account string
	when                    span
}

// maxGrantsSeen is how many of the last password grants a run compares
// a new one with.
const maxGrantsSeen = 256

// issued notes a password grant of target (a world's base address)
// answered with access for account during when, and the grants of other
// accounts to the same target it met.
func (g *grantsSeen) issued(target, access, account string, when span) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for _, other := range g.recent {
		if other.target != target || other.account == account || !other.when.meets(when) {
			continue
		}
		g.note(access, other.account, "answered at the same moment as "+other.account+"'s")
		g.note(other.access, account, "answered at the same moment as "+account+"'s")
	}
	g.recent = append(g.recent, grantSeen{target: target, access: access, account: account, when: when})
	if len(g.recent) > maxGrantsSeen {
		g.recent = g.recent[1:]
	}
}

// named notes that the form of the grant that issued access named
// account too (a username sent twice, a username beside a refresh
// token).
func (g *grantsSeen) named(access, account string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.note(access, account, "whose form also named "+account)
}

// note notes account beside access, the first way it stood there. g.mu
// is held.
func (g *grantsSeen) note(access, account, how string) {
	if g.beside == nil {
		g.beside = map[string]map[string]string{}
	}
	if g.beside[access] == nil {
		g.beside[access] = map[string]string{}
	}
	if _, ok := g.beside[access][account]; !ok {
		g.beside[access][account] = how
	}
}

// of are the accounts that stood beside the grant of access, each with
// how.
func (g *grantsSeen) of(access string) map[string]string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return maps.Clone(g.beside[access])
}
