package event

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"eventsvc/server/backend"
)

// PostgresBackend names the PostgreSQL of the events in errors and
// reports.
const PostgresBackend = "postgresql (events)"

// DefaultPostgresTimeout bounds each operation of a Postgres store.
const DefaultPostgresTimeout = 2 * time.Second

// Postgres is the Store in a PostgreSQL database, shared by every replica
// of the server and kept across restarts. Paging and sorting happen in
// SQL, on an index per sortable property (migrations/); a page far from
// the start is read from the other end of the index, so that the last
// page costs what the first does. A change locks its row (SELECT … FOR
// UPDATE) and a create locks its manager's count, so that concurrent
// updates and creates are safe on any number of replicas.
type Postgres struct {
	pool    *pgxpool.Pool
	timeout time.Duration
}

var _ Store = (*Postgres)(nil)

// OpenPostgres connects to the database at url ("postgres://user@host/db"),
// brings its schema up to date (Migrate), and returns the store; each
// operation gives up after timeout (zero: DefaultPostgresTimeout). The pool
// reconnects by itself when the database comes back after a failure.
func OpenPostgres(ctx context.Context, url string, timeout time.Duration) (*Postgres, error) {
	if timeout <= 0 {
		timeout = DefaultPostgresTimeout
	}
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("database url: %w", err)
	}
	cfg.ConnConfig.ConnectTimeout = timeout
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("database: %w", err)
	}
	mctx, cancel := context.WithTimeout(ctx, max(timeout, 30*time.Second))
	defer cancel()
	if _, err := Migrate(mctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Postgres{pool: pool, timeout: timeout}, nil
}

// Close closes the connections.
func (p *Postgres) Close() { p.pool.Close() }

// Name implements backend.Checker.
func (p *Postgres) Name() string { return PostgresBackend }

// Ping implements backend.Checker.
func (p *Postgres) Ping(ctx context.Context) error {
	if err := p.pool.Ping(ctx); err != nil {
		return backend.Unavailable(PostgresBackend, "ping", err)
	}
	return nil
}

// fail wraps err: a failure to reach the database or to get an answer in
// time is backend.ErrUnavailable; anything else (a bug, a constraint) is
// itself.
func fail(op string, err error) error {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch {
		case strings.HasPrefix(pgErr.Code, "08"), // connection exception
			pgErr.Code == "57P01", pgErr.Code == "57P02", pgErr.Code == "57P03", // shutting down, starting
			pgErr.Code == "53300", // too many connections
			pgErr.Code == "57014" && strings.Contains(pgErr.Message, "timeout"): // statement timeout
			return backend.Unavailable(PostgresBackend, op, err)
		}
		return fmt.Errorf("%s: %w", op, err)
	}
	var netErr net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.As(err, &netErr) || pgconn.SafeToRetry(err) ||
		pgconn.Timeout(err) || errors.Is(err, net.ErrClosed) || isConnectError(err) {
		return backend.Unavailable(PostgresBackend, op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce) || strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "unexpected EOF")
}

func (p *Postgres) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), p.timeout)
}

// columns are the columns of an event, in the order scan reads them.
const columns = `id, name, description, begin_enrollment_date_time, close_enrollment_date_time,
	begin_event_date_time, end_event_date_time, location, base_price, max_price, limit_of_enrollment,
	offline, free, event_status, manager_id`

func scan(row pgx.Row) (Event, error) {
	var e Event
	var status string
	err := row.Scan(&e.ID, &e.Name, &e.Description, &e.BeginEnrollmentDateTime, &e.CloseEnrollmentDateTime,
		&e.BeginEventDateTime, &e.EndEventDateTime, &e.Location, &e.BasePrice, &e.MaxPrice, &e.LimitOfEnrollment,
		&e.Offline, &e.Free, &status, &e.ManagerID)
	e.Status = Status(status)
	return e, err
}

// values are e's columns but the id, in the order of columns.
func values(e Event) []any {
	return []any{e.Name, e.Description, e.BeginEnrollmentDateTime, e.CloseEnrollmentDateTime,
		e.BeginEventDateTime, e.EndEventDateTime, e.Location, e.BasePrice, e.MaxPrice, e.LimitOfEnrollment,
		e.Offline, e.Free, string(e.Status), e.ManagerID}
}

// Create implements Store.
func (p *Postgres) Create(e Event) (Event, error) { return p.CreateLimited(e, 0) }

// CreateLimited implements Store. The count of the manager's events is
// raised in the same transaction as the insert, only while below limit:
// its row lock makes concurrent creates of one manager take turns.
func (p *Postgres) CreateLimited(e Event, limit int) (Event, error) {
	ctx, cancel := p.ctx()
	defer cancel()
	e.compute()
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		var n int
		err := tx.QueryRow(ctx, `INSERT INTO event_managers AS m (manager_id, events) VALUES ($1, 1)
			ON CONFLICT (manager_id) DO UPDATE SET events = m.events + 1
			WHERE $2 <= 0 OR m.events < $2
			RETURNING events`, e.ManagerID, limit).Scan(&n)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("manager %d: %w (%d)", e.ManagerID, ErrLimitReached, limit)
		} else if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `INSERT INTO events (name, description, begin_enrollment_date_time,
			close_enrollment_date_time, begin_event_date_time, end_event_date_time, location, base_price,
			max_price, limit_of_enrollment, offline, free, event_status, manager_id)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) RETURNING id`, values(e)...).Scan(&e.ID)
	})
	if errors.Is(err, ErrLimitReached) {
		return Event{}, err
	} else if err != nil {
		return Event{}, fail("create event", err)
	}
	return e, nil
}

// Get implements Store.
func (p *Postgres) Get(id int64) (Event, error) {
	ctx, cancel := p.ctx()
	defer cancel()
	e, err := scan(p.pool.QueryRow(ctx, "SELECT "+columns+" FROM events WHERE id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
		return Event{}, ErrNotFound
	} else if err != nil {
		return Event{}, fail("read event", err)
	}
	return e, nil
}

// errChange carries the error of Update's change out of its transaction.
type errChange struct{ err error }

func (e errChange) Error() string { return e.err.Error() }

// Update implements Store: the row is locked while change runs, so that
// no other change to it, on any replica, runs in between.
func (p *Postgres) Update(id int64, change func(*Event) error) (Event, error) {
	ctx, cancel := p.ctx()
	defer cancel()
	var next Event
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		old, err := scan(tx.QueryRow(ctx, "SELECT "+columns+" FROM events WHERE id = $1 FOR UPDATE", id))
		if err != nil {
			return err
		}
		next = old
		if err := change(&next); err != nil {
			return errChange{err}
		}
		next.ID = id
		next.compute()
		if _, err := tx.Exec(ctx, `UPDATE events SET name = $1, description = $2, begin_enrollment_date_time = $3,
			close_enrollment_date_time = $4, begin_event_date_time = $5, end_event_date_time = $6, location = $7,
			base_price = $8, max_price = $9, limit_of_enrollment = $10, offline = $11, free = $12,
			event_status = $13, manager_id = $14 WHERE id = $15`, append(values(next), id)...); err != nil {
			return err
		}
		if next.ManagerID != old.ManagerID {
			if _, err := tx.Exec(ctx, "UPDATE event_managers SET events = events - 1 WHERE manager_id = $1", old.ManagerID); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `INSERT INTO event_managers AS m (manager_id, events) VALUES ($1, 1)
				ON CONFLICT (manager_id) DO UPDATE SET events = m.events + 1`, next.ManagerID); err != nil {
				return err
			}
		}
		return nil
	})
	var ce errChange
	switch {
	case errors.As(err, &ce):
		return Event{}, ce.err
	case errors.Is(err, pgx.ErrNoRows):
		return Event{}, ErrNotFound
	case err != nil:
		return Event{}, fail("update event", err)
	}
	return next, nil
}

// orderBy is the ORDER BY of each sortable property, ascending; every
// order ends with the id, and each has its index (migrations/).
var orderBy = map[string][]string{
	"id":                      {"id"},
	"name":                    {"name", "id"},
	"description":             {"left(description, 400)", "description", "id"},
	"location":                {"location", "id"},
	"beginEnrollmentDateTime": {"begin_enrollment_date_time", "id"},
	"closeEnrollmentDateTime": {"close_enrollment_date_time", "id"},
	"beginEventDateTime":      {"begin_event_date_time", "id"},
	"endEventDateTime":        {"end_event_date_time", "id"},
	"basePrice":               {"base_price", "id"},
	"maxPrice":                {"max_price", "id"},
	"limitOfEnrollment":       {"limit_of_enrollment", "id"},
	"offline":                 {"offline", "id"},
	"free":                    {"free", "id"},
	"eventStatus":             {"event_status", "id"},
}

func orderClause(prop string, desc bool) string {
	terms := slices.Clone(orderBy[prop])
	if desc {
		for i := range terms {
			terms[i] += " DESC"
		}
	}
	return strings.Join(terms, ", ")
}

// List implements Store. The total comes from the managers' counts, not
// from counting the events; a page in the second half of the order is
// read from the other end, and reversed.
func (p *Postgres) List(q Query) (Page, error) {
	if q.Sort == "" {
		q.Sort = "id"
	}
	if _, ok := orderBy[q.Sort]; !ok {
		return Page{}, fmt.Errorf("events cannot be sorted by %q", q.Sort)
	}
	if q.Page < 0 || q.Size < 1 {
		return Page{}, fmt.Errorf("page %d of size %d does not exist", q.Page, q.Size)
	}
	ctx, cancel := p.ctx()
	defer cancel()
	var page Page
	err := pgx.BeginTxFunc(ctx, p.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		var total int64
		if err := tx.QueryRow(ctx, "SELECT coalesce(sum(events), 0) FROM event_managers").Scan(&total); err != nil {
			return err
		}
		page = Page{Total: int(total)}
		n := page.Total
		if q.Page > n/q.Size {
			return nil
		}
		start := q.Page * q.Size
		if start >= n {
			return nil
		}
		end := min(start+q.Size, n)
		desc, offset, reverse := q.Desc, start, false
		if start > n-end { // nearer the end: read the other way
			desc, offset, reverse = !q.Desc, n-end, true
		}
		rows, err := tx.Query(ctx, "SELECT "+columns+" FROM events ORDER BY "+orderClause(q.Sort, desc)+
			" LIMIT $1 OFFSET $2", end-start, offset)
		if err != nil {
			return err
		}
		events, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Event, error) { return scan(r) })
		if err != nil {
			return err
		}
		if reverse {
			slices.Reverse(events)
		}
		page.Events = events
		return nil
	})
	if err != nil {
		return Page{}, fail("list events", err)
	}
	return page, nil
}

// SeedIfEmpty creates events, in one transaction, when the database holds
// none: the demo events of a first start, not again at every start of
// every replica. It reports whether it created them.
func (p *Postgres) SeedIfEmpty(events []Event) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), max(p.timeout, 30*time.Second))
	defer cancel()
	seeded := false
	err := pgx.BeginFunc(ctx, p.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "LOCK TABLE event_managers IN EXCLUSIVE MODE"); err != nil {
			return err
		}
		var any bool
		if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM events)").Scan(&any); err != nil || any {
			return err
		}
		counts := map[int64]int{}
		for _, e := range events {
			e.compute()
			if _, err := tx.Exec(ctx, `INSERT INTO events (name, description, begin_enrollment_date_time,
				close_enrollment_date_time, begin_event_date_time, end_event_date_time, location, base_price,
				max_price, limit_of_enrollment, offline, free, event_status, manager_id)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`, values(e)...); err != nil {
				return err
			}
			counts[e.ManagerID]++
		}
		for m, n := range counts {
			if _, err := tx.Exec(ctx, `INSERT INTO event_managers AS m (manager_id, events) VALUES ($1, $2)
				ON CONFLICT (manager_id) DO UPDATE SET events = m.events + $2`, m, n); err != nil {
				return err
			}
		}
		seeded = len(events) > 0
		return nil
	})
	if err != nil {
		return false, fail("seed events", err)
	}
	return seeded, nil
}
