package consumer

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"

	_ "modernc.org/sqlite" // the pure-Go SQLite driver: no cgo, so go install builds it
)

// Store is a consumer group's database: the article's handler store, one
// SQLite file per group in the run's evidence directory. The effect is the
// article's like count, a counter per message key; beside it, a counter
// per event id says how often each event took effect, which is what the
// tally reads. event_handled is the article's dedup table, keyed by event
// id. Every member of the group opens the same file, one at a time.
type Store struct {
	db *sql.DB
}

const schema = `
CREATE TABLE IF NOT EXISTS like_count (product TEXT PRIMARY KEY, count INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS applied (event_id TEXT PRIMARY KEY, times INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS event_handled (event_id TEXT PRIMARY KEY, handled_at TEXT NOT NULL);
`

// OpenStore opens (creating) the store at path. The journal is a WAL with
// synchronous=FULL: a transaction that returned is in the file even when
// the process is killed a moment later.
func OpenStore(path string) (*Store, error) {
	dsn, err := storeDSN(path)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(schema); err != nil {
		db.Close()
		return nil, fmt.Errorf("store %s: %w", path, err)
	}
	return &Store{db: db}, nil
}

// storeDSN is the SQLite URI of the store at path: file:///abs/path with
// the path escaped, so that a ?, # or % in a directory name (kafkabook run
// --out 'a?b') is part of the file name and not the start of the query,
// then the driver's pragmas as the query.
func storeDSN(path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs),
		RawQuery: "_pragma=journal_mode(WAL)&_pragma=synchronous(FULL)&_pragma=busy_timeout(5000)"}
	return u.String(), nil
}

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// Handled reports whether the event id is in event_handled.
func (s *Store) Handled(ctx context.Context, event string) (bool, error) {
	var one int
	err := s.db.QueryRowContext(ctx, `SELECT 1 FROM event_handled WHERE event_id = ?`, event).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return false, nil
	}
	return err == nil, err
}

// Apply applies one message's effect in one transaction: the like count of
// its product (the message key) and the event's applied count go up by
// one. With markHandled, the event id goes into event_handled in the same
// transaction (--dedup transactional).
func (s *Store) Apply(ctx context.Context, product, event string, markHandled bool) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO like_count (product, count) VALUES (?, 1)
		ON CONFLICT (product) DO UPDATE SET count = count + 1`, product); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO applied (event_id, times) VALUES (?, 1)
		ON CONFLICT (event_id) DO UPDATE SET times = times + 1`, event); err != nil {
		return err
	}
	if markHandled {
		if err := insertHandled(ctx, tx, event); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// MarkHandled inserts the event id into event_handled in a transaction of
// its own: the article's order, with its window between effect and mark.
func (s *Store) MarkHandled(ctx context.Context, event string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := insertHandled(ctx, tx, event); err != nil {
		return err
	}
	return tx.Commit()
}

func insertHandled(ctx context.Context, tx *sql.Tx, event string) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO event_handled (event_id, handled_at) VALUES (?, strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))`, event)
	return err
}

// Contents is what the store holds: the applied count of every event and
// the like count of every product.
type Contents struct {
	Applied map[string]int64
	Likes   map[string]int64
	Handled map[string]bool
}

// Read returns the store's contents.
func (s *Store) Read(ctx context.Context) (Contents, error) {
	c := Contents{Applied: map[string]int64{}, Likes: map[string]int64{}, Handled: map[string]bool{}}
	for _, q := range []struct {
		sql string
		put func(k string, n int64)
	}{
		{`SELECT event_id, times FROM applied`, func(k string, n int64) { c.Applied[k] = n }},
		{`SELECT product, count FROM like_count`, func(k string, n int64) { c.Likes[k] = n }},
		{`SELECT event_id, 1 FROM event_handled`, func(k string, n int64) { c.Handled[k] = true }},
	} {
		rows, err := s.db.QueryContext(ctx, q.sql)
		if err != nil {
			return c, err
		}
		for rows.Next() {
			var k string
			var n int64
			if err := rows.Scan(&k, &n); err != nil {
				rows.Close()
				return c, err
			}
			q.put(k, n)
		}
		if err := rows.Close(); err != nil {
			return c, err
		}
	}
	return c, nil
}
