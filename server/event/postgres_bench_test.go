package event

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// millionEvents is how many events BenchmarkPostgresList1M lists.
const millionEvents = 1_000_000

// loadEvents fills p's empty database with n events in one statement, and
// the managers' counts the store keeps beside them.
func loadEvents(b *testing.B, p *Postgres, n int) {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	start := time.Now()
	_, err := p.pool.Exec(ctx, `INSERT INTO events (name, description, begin_enrollment_date_time,
		close_enrollment_date_time, begin_event_date_time, end_event_date_time, location, base_price,
		max_price, limit_of_enrollment, offline, free, event_status, manager_id)
		SELECT 'event ' || i, 'description ' || (i % 1000),
			timestamp '2026-01-01' + (i % 5000) * interval '1 hour', timestamp '2026-01-02' + (i % 5000) * interval '1 hour',
			timestamp '2026-01-03' + (i % 5000) * interval '1 hour', timestamp '2026-01-04' + (i % 5000) * interval '1 hour',
			CASE WHEN i % 3 = 0 THEN '' ELSE 'room ' || (i % 50) END, (i % 7) * 100, (i % 5) * 200, i % 300,
			i % 3 <> 0, i % 7 = 0 AND i % 5 = 0, 'DRAFT', i % 2 + 1
		FROM generate_series(1, $1) AS i`, n)
	if err == nil {
		_, err = p.pool.Exec(ctx, `INSERT INTO event_managers (manager_id, events)
			SELECT manager_id, count(*) FROM events GROUP BY manager_id`)
	}
	if err == nil {
		_, err = p.pool.Exec(ctx, "VACUUM ANALYZE events")
	}
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("%d events loaded in %v", n, time.Since(start).Round(time.Second))
}

// BenchmarkPostgresList1M lists the first and the last page of a million
// events in PostgreSQL, by id and by name, both ways: what GET /api/events
// costs the database. The last page is read from the other end of the
// index, so that it costs what the first does.
func BenchmarkPostgresList1M(b *testing.B) {
	p, _ := openPostgres(b)
	loadEvents(b, p, millionEvents)
	const size = 20
	last := (millionEvents+size-1)/size - 1
	for _, sort := range []string{"id", "name"} {
		for _, desc := range []bool{false, true} {
			for _, at := range []struct {
				name string
				page int
			}{{"first", 0}, {"middle", last / 2}, {"last", last}} {
				name := fmt.Sprintf("sort=%s,desc=%v/%s", sort, desc, at.name)
				q := Query{Page: at.page, Size: size, Sort: sort, Desc: desc}
				b.Run(name, func(b *testing.B) {
					for b.Loop() {
						page, err := p.List(q)
						if err != nil || len(page.Events) != size || page.Total != millionEvents {
							b.Fatalf("%+v: %d events of %d, %v", q, len(page.Events), page.Total, err)
						}
					}
				})
			}
		}
	}
}
