package backend

import (
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// OpenRedis returns a client of the Redis at url ("redis://host:port/db",
// or rediss:// for TLS) whose every operation, the dial included, gives up
// after timeout: a Redis that hangs costs a request at most that long. The
// client reconnects by itself when the Redis comes back. Nothing is sent
// before the first operation.
func OpenRedis(url string, timeout time.Duration) (*redis.Client, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("redis url: %w", err)
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeout, timeout, timeout
	opts.PoolTimeout = timeout
	opts.ContextTimeoutEnabled = true
	opts.MaxRetries = 1
	return redis.NewClient(opts), nil
}
