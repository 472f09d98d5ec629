package control

import (
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"eventsvc/server"
	"eventsvc/server/clock"
	"eventsvc/server/event"
	"eventsvc/server/servertest"
)

// TestAMockSteersTheServerItIsWiredInto: the clock, journal and faults of
// a Mock are those of the public server it steers and of the control API
// it makes, which moves, reads and changes them.
func TestAMockSteersTheServerItIsWiredInto(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	m := NewMock(clock.NewManual(t0))
	if m.Journal.Capacity() != JournalSize {
		t.Fatalf("journal capacity %d, want %d", m.Journal.Capacity(), JournalSize)
	}
	cfg := servertest.DemoConfig(t)
	events := event.NewMemory()
	opts := server.Options{Config: cfg, Events: events}
	m.Steer(&opts)
	if opts.Clock != m.Clock || opts.Journal != m.Journal || opts.Faults != m.Faults {
		t.Fatalf("Steer left the server's options %+v", opts)
	}
	srv := server.New(opts)
	ctl := m.Control(Options{Server: srv, Events: events, Accounts: cfg.Accounts, Clients: cfg.Clients, Cost: bcrypt.MinCost})
	public, control := servertest.New(t, srv).URL, servertest.New(t, ctl).URL
	r := &rig{public: public, control: control}

	if status, c := r.call(t, http.MethodPost, "/clock", `{"advance": "90s"}`); status != http.StatusOK || c["movedSeconds"] != float64(90) {
		t.Fatalf("advance = %d %v", status, c)
	}
	if got, want := m.Clock.Now(), t0.Add(90*time.Second); !got.Equal(want) {
		t.Fatalf("the mock's clock reads %v, want %v", got, want)
	}
	if status, _ := r.call(t, http.MethodPost, "/faults", `{"method": "GET", "path": "/api", "status": 503, "times": 1}`); status != http.StatusCreated {
		t.Fatalf("add fault = %d", status)
	}
	if status, _ := r.publicCall(t, http.MethodGet, "/api", "", ""); status != http.StatusServiceUnavailable {
		t.Fatalf("GET /api with the fault = %d, want 503", status)
	}
	entries := m.Journal.Last(0)
	if len(entries) != 1 || entries[0].Fault != 1 || !entries[0].Time.Equal(t0.Add(90*time.Second)) {
		t.Fatalf("the mock's journal holds %+v, want the faulted GET /api at the moved time", entries)
	}
}

func TestDemoStartMakesFreshDemoEvents(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	start := DemoStart(3, servertest.DemoConfig(t).Accounts, t0)
	first := start()
	if len(first) != 3 || first[0].ManagerID != 1 || first[1].ManagerID != 2 || first[2].ManagerID != 1 {
		t.Fatalf("demo events %+v, want 3 managed in turn by accounts 1 and 2", first)
	}
	first[0].Name = "changed"
	if again := start(); again[0].Name == "changed" {
		t.Fatal("a second call hands out the events the first changed")
	}
	if none := DemoStart(0, servertest.DemoConfig(t).Accounts, t0)(); len(none) != 0 {
		t.Fatalf("DemoStart(0) made %d events", len(none))
	}
}

func TestSeedStartReadsTheSeedOnce(t *testing.T) {
	accounts := servertest.DemoConfig(t).Accounts
	start, err := SeedStart([]byte(`[`+strings.TrimSpace(newEvent[:len(newEvent)-1])+`, "manager": "user@email.com"}]`), accounts)
	if err != nil {
		t.Fatal(err)
	}
	first := start()
	if len(first) != 1 || first[0].Name != "Rehearsal" || first[0].ManagerID != 2 {
		t.Fatalf("seeded %+v", first)
	}
	first[0].Name = "changed"
	if again := start(); again[0].Name != "Rehearsal" {
		t.Fatal("a second call hands out the events the first changed")
	}
	_, err = SeedStart([]byte(`[{"name": ""}]`), accounts)
	var serr *event.SeedError
	if !errors.As(err, &serr) || !strings.Contains(err.Error(), "event 0 of the seed") {
		t.Fatalf("an invalid seed: %v, want a *event.SeedError", err)
	}
	if _, err := SeedStart([]byte(`{}`), accounts); err == nil {
		t.Fatal("a seed that is not a list was taken")
	}
}
