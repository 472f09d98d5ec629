package throttle

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/redis/go-redis/v9"

	"eventsvc/server/backend"
	"eventsvc/server/clock"
)

// RedisBackend names the Redis of the lockout in errors and reports.
const RedisBackend = "redis (lockout)"

// RedisGuard is the lockout in Redis, shared by every replica of the
// server: the failures of one user from one address count once, whichever
// replica they reach. It keeps Throttle's rules across replicas:
//
//   - the reservation of an attempt is atomic in Redis (one Lua script
//     reads the failures, the lockout and the attempts in progress, and
//     reserves), so that however many attempts reach however many
//     replicas at once, at most Failures are checked in a window;
//   - keys are the hex of the Key, a digest: no username or address is
//     in Redis, and of the latest wrong secrets only short keyed digests
//     (RecentWrong);
//   - every key expires (the window and the lockout together, as
//     Throttle forgets a key), so that the keys are bounded by the
//     attempts of that time, and an attempt reserved by a replica that
//     died is forgotten after ReservationTTL.
//
// Times come from the injected clock, as in Throttle.
type RedisGuard struct {
	tags    tagger // a replica's own: a wrong secret repeated through two replicas counts twice
	client  redis.UniversalClient
	prefix  string
	limits  Limits
	clock   clock.Clock
	timeout time.Duration
}

// ReservationTTL is how long an attempt reserved and never ended (its
// replica stopped in between) counts as in progress.
const ReservationTTL = 30 * time.Second

// NewRedisGuard returns a RedisGuard with the given limits (MaxKeys is not
// used: keys expire instead) on client, its keys starting with prefix,
// reading the time from c; each operation gives up after timeout.
func NewRedisGuard(client redis.UniversalClient, prefix string, l Limits, c clock.Clock, timeout time.Duration) *RedisGuard {
	l.Failures = max(l.Failures, 1)
	if prefix == "" {
		prefix = "eventsvc:"
	}
	return &RedisGuard{tags: newTagger(), client: client, prefix: prefix, limits: l, clock: c, timeout: timeout}
}

var _ Guard = (*RedisGuard)(nil)

// The scripts' keys: the entry of a key (a hash of failures, since,
// blocked, in Unix milliseconds), and its attempts in progress (a sorted
// set of reservations by deadline). ARGV[1] is now in Unix milliseconds.

// allowedLua is Throttle.allowed, after forgetting reservations past
// their deadline. It leaves {0, ms left} when refused, -1 for Busy.
const allowedLua = `
local now = tonumber(ARGV[1])
local limit, window = tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
local h = redis.call('HMGET', KEYS[1], 'failures', 'since', 'blocked')
local failures, since, blocked = tonumber(h[1]) or 0, tonumber(h[2]) or 0, tonumber(h[3]) or 0
if blocked > now then return {0, blocked - now} end
if now - since > window then failures = 0 end
if failures + redis.call('ZCARD', KEYS[2]) >= limit then return {0, -1} end
`

// reserveScript: ARGV now, failures, window, reservation deadline, a
// unique reservation id, the keys' TTL in ms.
var reserveScript = redis.NewScript(allowedLua + `
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
redis.call('PEXPIRE', KEYS[2], ARGV[6])
return {1, 0}
`)

// passScript is Throttle.Pass: when allowed, the failures are forgotten.
// ARGV now, failures, window.
var passScript = redis.NewScript(allowedLua + `
redis.call('DEL', KEYS[1])
return {1, 0}
`)

// failedScript is Throttle.Failed: ARGV now, failures, window, lockout,
// the keys' TTL in ms, the wrong secret's tag, RecentWrong. The tags of
// the latest wrong secrets are the entry's "wrong", comma-separated.
var failedScript = redis.NewScript(`
local now = tonumber(ARGV[1])
local limit, window, lockout = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local tag, recent = ARGV[6], tonumber(ARGV[7])
redis.call('ZPOPMIN', KEYS[2])
local h = redis.call('HMGET', KEYS[1], 'failures', 'since', 'wrong')
local failures, since, wrong = tonumber(h[1]) or 0, tonumber(h[2]) or 0, h[3] or ''
if failures == 0 or now - since > window then failures, since, wrong = 0, now, '' end
local tags = {}
for t in string.gmatch(wrong, '[^,]+') do
  if t == tag then return 0 end
  table.insert(tags, t)
end
while #tags >= recent do table.remove(tags, 1) end
table.insert(tags, tag)
failures = failures + 1
local locked = 0
if failures >= limit then
  redis.call('HSET', KEYS[1], 'blocked', now + lockout)
  failures, locked, tags = 0, 1, {}
end
redis.call('HSET', KEYS[1], 'failures', failures, 'since', since, 'wrong', table.concat(tags, ','))
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return locked
`)

// succeededScript is Throttle.Succeeded.
var succeededScript = redis.NewScript(`
redis.call('ZPOPMIN', KEYS[2])
redis.call('DEL', KEYS[1])
return 0
`)

func (g *RedisGuard) keys(key Key) []string {
	h := hex.EncodeToString(key[:])
	return []string{g.prefix + "l:" + h, g.prefix + "p:" + h}
}

func (g *RedisGuard) keyTTL() int64 {
	return max(g.limits.Window+g.limits.Lockout, ReservationTTL).Milliseconds()
}

func (g *RedisGuard) decide(script *redis.Script, key Key, op string, extra ...any) (time.Duration, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	args := append([]any{g.clock.Now().UnixMilli(), g.limits.Failures, g.limits.Window.Milliseconds()}, extra...)
	res, err := script.Run(ctx, g.client, g.keys(key), args...).Int64Slice()
	if err != nil {
		return 0, false, backend.Unavailable(RedisBackend, op, err)
	}
	switch {
	case res[0] == 1:
		return 0, true, nil
	case res[1] < 0:
		return Busy, false, nil
	}
	return time.Duration(res[1]) * time.Millisecond, false, nil
}

// Begin implements Guard.
func (g *RedisGuard) Begin(key Key) (time.Duration, bool, error) {
	id := make([]byte, 12)
	_, _ = rand.Read(id)
	deadline := g.clock.Now().Add(ReservationTTL).UnixMilli()
	return g.decide(reserveScript, key, "reserve a login attempt", deadline, hex.EncodeToString(id), g.keyTTL())
}

// Pass implements Guard.
func (g *RedisGuard) Pass(key Key) (time.Duration, bool, error) {
	return g.decide(passScript, key, "check the lockout")
}

// End implements Guard.
func (g *RedisGuard) End(key Key, succeeded bool, wrong string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), g.timeout)
	defer cancel()
	var locked int
	var err error
	if succeeded {
		err = succeededScript.Run(ctx, g.client, g.keys(key)).Err()
	} else {
		locked, err = failedScript.Run(ctx, g.client, g.keys(key), g.clock.Now().UnixMilli(),
			g.limits.Failures, g.limits.Window.Milliseconds(), g.limits.Lockout.Milliseconds(), g.keyTTL(),
			g.tags.tag(key, wrong), RecentWrong).Int()
	}
	if err != nil {
		return false, backend.Unavailable(RedisBackend, "count a login attempt", err)
	}
	return locked == 1, nil
}
