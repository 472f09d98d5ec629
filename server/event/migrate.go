package event

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// migrations are the versioned changes of the PostgreSQL schema, applied
// in order of their number, each once: NNNN_what.sql. A migration is never
// changed once released; a change of the schema is a new file.
//
//go:embed migrations/*.sql
var migrations embed.FS

// migrationLock is the key of the advisory lock that makes replicas
// starting at once apply the migrations one after the other.
const migrationLock = 0x6576656e74737663 // "eventsvc"

// Migration is one versioned change of the schema.
type Migration struct {
	Version int
	Name    string
	SQL     string
}

// Migrations returns the schema's migrations in order.
func Migrations() ([]Migration, error) {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []Migration
	for _, f := range files {
		base := path.Base(f)
		num, name, ok := strings.Cut(strings.TrimSuffix(base, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v < 1 {
			return nil, fmt.Errorf("migration %s: the name must be NNNN_what.sql", base)
		}
		b, err := migrations.ReadFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, Migration{Version: v, Name: name, SQL: string(b)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Version < out[j].Version })
	for i, m := range out {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %d is missing", i+1)
		}
	}
	return out, nil
}

// Migrate brings the schema of the database up to date, in one
// transaction: it applies the migrations it has not applied yet, in
// order, and records each in schema_migrations. Replicas that start at
// once take turns (an advisory lock). A database migrated by a newer
// version of the server is refused, left as it is.
func Migrate(ctx context.Context, pool *pgxpool.Pool) (applied []int, err error) {
	all, err := Migrations()
	if err != nil {
		return nil, err
	}
	err = pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", int64(migrationLock)); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS schema_migrations (
			version integer PRIMARY KEY,
			name text NOT NULL,
			applied_at timestamptz NOT NULL DEFAULT now())`); err != nil {
			return err
		}
		var current int
		if err := tx.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM schema_migrations").Scan(&current); err != nil {
			return err
		}
		if current > len(all) {
			return fmt.Errorf("the database's schema is at version %d, newer than this server's %d: it was migrated by a newer eventsvc", current, len(all))
		}
		for _, m := range all[current:] {
			if _, err := tx.Exec(ctx, m.SQL); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
			}
			if _, err := tx.Exec(ctx, "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)", m.Version, m.Name); err != nil {
				return err
			}
			applied = append(applied, m.Version)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("migrate the events schema: %w", err)
	}
	return applied, nil
}
