package event

import (
	"os"
	"testing"

	"eventsvc/server/backendtest"
)

// TestMain stops the PostgreSQL the tests of Postgres start.
func TestMain(m *testing.M) { os.Exit(backendtest.Main(m)) }
