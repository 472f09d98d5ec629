package main

import (
	"os"
	"testing"

	"eventsvc/server/backendtest"
)

// TestMain stops the Redis and PostgreSQL the tests of -redis and
// -database start.
func TestMain(m *testing.M) { os.Exit(backendtest.Main(m)) }
