package event

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"eventsvc/server/backendtest"
)

// openPostgres returns a Postgres store on a database of the test's own in
// the test binary's real PostgreSQL, and the database's URL.
func openPostgres(t testing.TB) (*Postgres, string) {
	t.Helper()
	url := backendtest.Postgres(t).Database(t)
	return openPostgresAt(t, url), url
}

// openReplicas returns two Postgres stores on one database of the test's
// own, as two replicas of the server have.
func openReplicas(t testing.TB) []*Postgres {
	t.Helper()
	a, url := openPostgres(t)
	return []*Postgres{a, openPostgresAt(t, url)}
}

// openPostgresAt returns a Postgres store on the database at url, closed
// when the test ends.
func openPostgresAt(t testing.TB, url string) *Postgres {
	t.Helper()
	p, err := OpenPostgres(context.Background(), url, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// sameEvents compares two lists of events field by field, times by
// instant.
func sameEvents(a, b []Event) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		for _, p := range []*time.Time{&x.BeginEnrollmentDateTime, &x.CloseEnrollmentDateTime, &x.BeginEventDateTime, &x.EndEventDateTime,
			&y.BeginEnrollmentDateTime, &y.CloseEnrollmentDateTime, &y.BeginEventDateTime, &y.EndEventDateTime} {
			*p = p.UTC()
		}
		if x != y {
			return false
		}
	}
	return true
}

func TestMigrationsApplyOnceAndRefuseANewerSchema(t *testing.T) {
	url := backendtest.Postgres(t).Database(t)
	ctx := context.Background()
	pool, err := pgxpool.New(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	all, err := Migrations()
	if err != nil || len(all) == 0 {
		t.Fatalf("migrations: %v, %v", all, err)
	}
	applied, err := Migrate(ctx, pool)
	if err != nil || len(applied) != len(all) {
		t.Fatalf("first start applied %v, %v; want all %d", applied, err, len(all))
	}
	if applied, err := Migrate(ctx, pool); err != nil || len(applied) != 0 {
		t.Fatalf("second start applied %v, %v; want none", applied, err)
	}
	var indexes int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_indexes WHERE tablename = 'events'").Scan(&indexes); err != nil || indexes != len(orderBy) {
		t.Fatalf("%d indexes on events, %v; want one per sortable property (%d)", indexes, err, len(orderBy))
	}
	if _, err := pool.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, 'from the future')", len(all)+1); err != nil {
		t.Fatal(err)
	}
	if _, err := Migrate(ctx, pool); err == nil || !strings.Contains(err.Error(), "newer eventsvc") {
		t.Fatalf("a newer schema: %v, want refused", err)
	}
}

// Replicas starting at once migrate one after the other.
func TestConcurrentStartsMigrateOnce(t *testing.T) {
	url := backendtest.Postgres(t).Database(t)
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			p, err := OpenPostgres(context.Background(), url, 5*time.Second)
			if err != nil {
				t.Error(err)
				return
			}
			p.Close()
		})
	}
	wg.Wait()
}

func TestPostgresCreateGetUpdate(t *testing.T) {
	p, _ := openPostgres(t)
	r := rand.New(rand.NewPCG(1, 1))
	in := randomEvent(r)
	created, err := p.Create(in)
	if err != nil {
		t.Fatal(err)
	}
	if created.ID != 1 || created.Offline != (strings.TrimSpace(in.Location) != "") {
		t.Fatalf("created %+v", created)
	}
	got, err := p.Get(created.ID)
	if err != nil || !sameEvents([]Event{got}, []Event{created}) {
		t.Fatalf("Get = %+v, %v; want %+v", got, err, created)
	}
	if _, err := p.Get(99); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Get of a missing event: %v", err)
	}
	refuse := errors.New("refused")
	if _, err := p.Update(created.ID, func(e *Event) error { e.Name = "lost"; return refuse }); err != refuse {
		t.Fatalf("a failing change: %v", err)
	}
	if got, _ := p.Get(created.ID); got.Name != created.Name {
		t.Fatal("a failing change changed the event")
	}
	updated, err := p.Update(created.ID, func(e *Event) error {
		e.Name, e.Location, e.BasePrice, e.MaxPrice, e.ID = "renamed", "", 0, 0, 77
		return nil
	})
	if err != nil || updated.ID != created.ID || updated.Name != "renamed" || updated.Offline || !updated.Free {
		t.Fatalf("Update = %+v, %v", updated, err)
	}
	if _, err := p.Update(99, func(*Event) error { return nil }); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Update of a missing event: %v", err)
	}
	if _, err := p.List(Query{Size: 1, Sort: "nope"}); err == nil {
		t.Fatal("an unknown sort is accepted")
	}
}

// Every page of every order, both ways, is the in-memory store's page.
func TestPostgresListsLikeMemory(t *testing.T) {
	p, _ := openPostgres(t)
	m := NewMemory()
	r := rand.New(rand.NewPCG(3, 4))
	long := strings.Repeat("é", 450) // past the 400 characters of the description's index
	for i := range 90 {
		e := randomEvent(r)
		if i%5 == 0 {
			e.Description = long + fmt.Sprint(r.IntN(4))
		}
		if i%7 == 0 {
			e.Name = "Ünïcode " + e.Name
		}
		if _, err := m.Create(e); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	for i := int64(1); i <= 90; i += 3 { // updates keep the order right
		change := randomChange(r)
		if _, err := m.Update(i, func(e *Event) error { change(e); return nil }); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Update(i, func(e *Event) error { change(e); return nil }); err != nil {
			t.Fatal(err)
		}
	}
	for _, prop := range allProperties {
		for _, desc := range []bool{false, true} {
			for _, size := range []int{7, 40} {
				for page := 0; page*size <= 90+size; page++ {
					q := Query{Page: page, Size: size, Sort: prop, Desc: desc}
					want, _ := m.List(q)
					got, err := p.List(q)
					if err != nil {
						t.Fatal(err)
					}
					if got.Total != want.Total || !sameEvents(got.Events, want.Events) {
						t.Fatalf("%+v: total %d %v, want %d %v", q, got.Total, ids(got.Events), want.Total, ids(want.Events))
					}
				}
			}
		}
	}
	if got, _ := p.List(Query{Page: 1 << 30, Size: 100}); got.Total != 90 || len(got.Events) != 0 {
		t.Fatalf("a page far past the end: %+v", got)
	}
}

// Updates of one event from two replicas at once lose none: each adds one
// to the limit of enrollment.
func TestPostgresConcurrentUpdatesLoseNothing(t *testing.T) {
	replicas := openReplicas(t)
	e, err := replicas[0].Create(Event{Name: "counter", ManagerID: 1})
	if err != nil {
		t.Fatal(err)
	}
	const n = 40
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			if _, err := replicas[i%2].Update(e.ID, func(e *Event) error { e.LimitOfEnrollment++; return nil }); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got, _ := replicas[1].Get(e.ID); got.LimitOfEnrollment != n {
		t.Fatalf("after %d concurrent increments: %d", n, got.LimitOfEnrollment)
	}
}

// The cap on events per manager holds across replicas creating at once.
func TestPostgresCreateLimitedCapsAcrossReplicas(t *testing.T) {
	replicas := openReplicas(t)
	const limit = 15
	var created, refused atomic.Int64
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Go(func() {
			_, err := replicas[i%2].CreateLimited(Event{ManagerID: 7, Name: fmt.Sprint(i)}, limit)
			tally(t, err, &created, &refused)
		})
	}
	wg.Wait()
	if created.Load() != limit || refused.Load() != 40-limit {
		t.Fatalf("40 creates with a limit of %d: %d created, %d refused", limit, created.Load(), refused.Load())
	}
	if page, _ := replicas[1].List(Query{Size: 100}); page.Total != limit || len(page.Events) != limit {
		t.Fatalf("total %d, %d listed; want %d", page.Total, len(page.Events), limit)
	}
}

func TestPostgresSeedsOnlyAnEmptyDatabase(t *testing.T) {
	p, _ := openPostgres(t)
	demo := Demo(5, []int64{1, 2}, time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC))
	for i, want := range []bool{true, false} {
		seeded, err := p.SeedIfEmpty(demo)
		if err != nil || seeded != want {
			t.Fatalf("start %d: seeded %v, %v; want %v", i+1, seeded, err, want)
		}
	}
	if page, _ := p.List(Query{Size: 20}); page.Total != 5 {
		t.Fatalf("%d events after two starts, want 5", page.Total)
	}
}

// A database that cannot be reached or does not answer makes every
// operation fail with backend.ErrUnavailable within the timeout; once it
// answers again, the store works again by itself.
func TestPostgresUnavailableThenRecovers(t *testing.T) {
	pg := backendtest.Postgres(t)
	url := pg.Database(t)
	proxy := backendtest.NewProxy(t, pg.Addr)
	p, err := OpenPostgres(context.Background(), strings.Replace(url, pg.Addr, proxy.Addr, 1), 400*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	e, err := p.Create(Event{Name: "kept", ManagerID: 1})
	if err != nil {
		t.Fatal(err)
	}
	proxy.CheckOutages(t, PostgresBackend, 5*time.Second, map[string]func() error{
		"create": func() error { _, err := p.Create(Event{Name: "x", ManagerID: 1}); return err },
		"get":    func() error { _, err := p.Get(e.ID); return err },
		"update": func() error { _, err := p.Update(e.ID, func(*Event) error { return nil }); return err },
		"list":   func() error { _, err := p.List(Query{Size: 5, Sort: "name"}); return err },
		"ping":   func() error { return p.Ping(context.Background()) },
	}, 10*time.Second, func() error {
		got, err := p.Get(e.ID)
		if err == nil && got.Name != "kept" {
			err = fmt.Errorf("the event reads %q, want kept", got.Name)
		}
		return err
	})
}
