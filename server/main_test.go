package server

import (
	"os"
	"testing"

	"eventsvc/server/backendtest"
)

// TestMain stops the Redis and PostgreSQL the tests of the shared backends
// start.
func TestMain(m *testing.M) { os.Exit(backendtest.Main(m)) }
