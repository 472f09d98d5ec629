package oauth

import (
	"os"
	"testing"

	"eventsvc/server/backendtest"
)

// TestMain stops the Redis the tests of RedisStore start.
func TestMain(m *testing.M) { os.Exit(backendtest.Main(m)) }
