package server

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/statedb"
)

// journal persists episode logs in SQLite next to the curriculum: one row
// per episode, written when it opens and when it ends, so a restart can
// report the episodes that were open as lost, and finished episodes stay
// exportable. The database is statedb's (WAL, synchronous=FULL), usually
// the handle the curriculum store writes through.
type journal struct {
	db   *sql.DB
	owns bool // close closes db: the journal opened it
}

const journalSchema = `
CREATE TABLE IF NOT EXISTS serve_episodes (
	id      TEXT PRIMARY KEY,
	task    TEXT NOT NULL,
	k       INTEGER NOT NULL,
	state   TEXT NOT NULL,
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL,
	success INTEGER,            -- NULL until evaluated
	record  TEXT NOT NULL       -- the JSON record: actions, outcome, parent
);
CREATE INDEX IF NOT EXISTS serve_episodes_state ON serve_episodes(state);
CREATE TABLE IF NOT EXISTS serve_actions (
	episode TEXT NOT NULL,
	n       INTEGER NOT NULL,     -- the action's index among the episode's
	action  TEXT NOT NULL,        -- the JSON action: step and observation
	PRIMARY KEY (episode, n)
);`

// openJournal opens the state database at path for the journal alone
// (WithJournal); the journal closes it.
func openJournal(ctx context.Context, path string, resume bool) (*journal, int, error) {
	db, err := statedb.Open(ctx, path)
	if err != nil {
		return nil, 0, fmt.Errorf("open episode journal: %w", err)
	}
	j, n, err := newJournal(ctx, db, resume)
	if err != nil {
		return nil, 0, errors.Join(fmt.Errorf("open episode journal %q: %w", path, err), db.Close())
	}
	j.owns = true
	return j, n, nil
}

// newJournal keeps the journal in db, a handle its owner closes. Unless
// resume (the server rebuilds them: openRecords), it marks the episodes
// still open (a previous process died with them) as lost; it returns how
// many.
func newJournal(ctx context.Context, db *sql.DB, resume bool) (*journal, int, error) {
	if _, err := db.ExecContext(ctx, journalSchema); err != nil {
		return nil, 0, fmt.Errorf("create journal schema: %w", err)
	}
	j := &journal{db: db}
	if resume {
		return j, 0, nil
	}
	n, err := j.markLost(ctx)
	return j, n, err
}

// markLost marks the episodes still open as lost and returns how many.
func (j *journal) markLost(ctx context.Context) (int, error) {
	db := j.db
	res, err := db.ExecContext(ctx, `UPDATE serve_episodes SET state = ?, updated = ?,
		record = json_set(record, '$.state', ?) WHERE state = ?`, StateLost, time.Now().UnixMilli(), StateLost, StateOpen)
	if err != nil {
		return 0, fmt.Errorf("mark lost episodes: %w", err)
	}
	if _, err := db.ExecContext(ctx, `DELETE FROM serve_actions WHERE episode IN (SELECT id FROM serve_episodes WHERE state = ?)`, StateLost); err != nil {
		return 0, fmt.Errorf("mark lost episodes: %w", err)
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// close closes the database when the journal opened it.
func (j *journal) close() error {
	if !j.owns {
		return nil
	}
	return j.db.Close()
}

// put writes an episode's record (insert or replace).
func (j *journal) put(ctx context.Context, r record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	var success any
	if r.Outcome != nil {
		success = r.Outcome.Success
	}
	_, err = j.db.ExecContext(context.WithoutCancel(ctx), `INSERT OR REPLACE INTO serve_episodes
		(id, task, k, state, created, updated, success, record) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		r.ID, r.Task, r.K, r.State, r.Created.UnixMilli(), r.Updated.UnixMilli(), success, string(b))
	if err != nil {
		return fmt.Errorf("journal episode %s: %w", r.ID, err)
	}
	if r.State != StateOpen { // the record holds every action now
		if _, err := j.db.ExecContext(context.WithoutCancel(ctx), `DELETE FROM serve_actions WHERE episode = ?`, r.ID); err != nil {
			return fmt.Errorf("journal episode %s: %w", r.ID, err)
		}
	}
	return nil
}

// appendAction saves an open episode's action n, before its answer: one
// row per action, so a step costs one small write, not the whole record.
func (j *journal) appendAction(ctx context.Context, id string, n int, a Action) error {
	b, err := json.Marshal(a)
	if err != nil {
		return err
	}
	if _, err := j.db.ExecContext(context.WithoutCancel(ctx), `INSERT OR REPLACE INTO serve_actions (episode, n, action) VALUES (?, ?, ?)`, id, n, string(b)); err != nil {
		return fmt.Errorf("journal action %d of episode %s: %w", n, id, err)
	}
	return nil
}

// openRecords reads the episodes a previous process left open, each with
// every action it journaled.
func (j *journal) openRecords(ctx context.Context) ([]record, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT record FROM serve_episodes WHERE state = ?`, StateOpen)
	if err != nil {
		return nil, fmt.Errorf("journal open episodes: %w", err)
	}
	var recs []record
	for rows.Next() {
		var b string
		var r record
		if err := rows.Scan(&b); err != nil {
			rows.Close()
			return nil, fmt.Errorf("journal open episodes: %w", err)
		}
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			rows.Close()
			return nil, fmt.Errorf("journal open episodes: %w", err)
		}
		recs = append(recs, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("journal open episodes: %w", err)
	}
	for i := range recs {
		if err := j.loadActions(ctx, &recs[i]); err != nil {
			return nil, err
		}
	}
	return recs, nil
}

// loadActions appends to r the actions journaled after its record.
func (j *journal) loadActions(ctx context.Context, r *record) error {
	rows, err := j.db.QueryContext(ctx, `SELECT n, action FROM serve_actions WHERE episode = ? AND n >= ? ORDER BY n`, r.ID, len(r.Actions))
	if err != nil {
		return fmt.Errorf("journal actions of %s: %w", r.ID, err)
	}
	defer rows.Close()
	for rows.Next() {
		var n int
		var b string
		if err := rows.Scan(&n, &b); err != nil {
			return fmt.Errorf("journal actions of %s: %w", r.ID, err)
		}
		if n != len(r.Actions) {
			return fmt.Errorf("journal actions of %s: action %d missing", r.ID, len(r.Actions))
		}
		var a Action
		if err := json.Unmarshal([]byte(b), &a); err != nil {
			return fmt.Errorf("journal action %d of %s: %w", n, r.ID, err)
		}
		r.Actions = append(r.Actions, a)
	}
	return rows.Err()
}

// get reads one record; ok is false when there is none.
func (j *journal) get(ctx context.Context, id string) (record, bool, error) {
	var b string
	err := j.db.QueryRowContext(ctx, "SELECT record FROM serve_episodes WHERE id = ?", id).Scan(&b)
	if errors.Is(err, sql.ErrNoRows) {
		return record{}, false, nil
	}
	if err != nil {
		return record{}, false, fmt.Errorf("journal read %s: %w", id, err)
	}
	var r record
	if err := json.Unmarshal([]byte(b), &r); err != nil {
		return record{}, false, fmt.Errorf("journal record %s: %w", id, err)
	}
	return r, true, nil
}

// list returns the newest records in a state ("" for any), without actions.
func (j *journal) list(ctx context.Context, state string, limit int) ([]record, error) {
	// A listing needs neither the actions nor the verifier output, only
	// how many actions there are.
	rows, err := j.db.QueryContext(ctx, `SELECT json_remove(record, '$.actions', '$.verifier'),
		coalesce(json_array_length(record, '$.actions'), 0) FROM serve_episodes
		WHERE ? = '' OR state = ? ORDER BY created DESC LIMIT ?`, state, state, limit)
	if err != nil {
		return nil, fmt.Errorf("journal list: %w", err)
	}
	defer rows.Close()
	var out []record
	for rows.Next() {
		var b string
		var r record
		if err := rows.Scan(&b, &r.steps); err != nil {
			return nil, fmt.Errorf("journal list: %w", err)
		}
		if err := json.Unmarshal([]byte(b), &r); err != nil {
			return nil, fmt.Errorf("journal list: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// loadHistory fills h with the latest evaluated outcomes, oldest first.
func (j *journal) loadHistory(ctx context.Context, h *history) error {
	// The latest historyMax outcomes of each task, not of all tasks
	// together: with thousands of tasks a global limit would leave most
	// of them without history after a restart.
	// Only the rows kept are read whole (the records hold every action).
	rows, err := j.db.QueryContext(ctx, `SELECT e.id, e.task, e.k, coalesce(json_extract(e.record, '$.purpose'), ''), e.success, e.updated
		FROM (SELECT rowid AS r, row_number() OVER (PARTITION BY task ORDER BY updated DESC, rowid DESC) AS n
			FROM serve_episodes WHERE success IS NOT NULL) AS latest
		JOIN serve_episodes e ON e.rowid = latest.r
		WHERE latest.n <= ? ORDER BY e.updated DESC, e.rowid DESC`, historyMax)
	if err != nil {
		return fmt.Errorf("journal history: %w", err)
	}
	defer rows.Close()
	var evs []HistoryEvent
	for rows.Next() {
		var ev HistoryEvent
		var at int64
		if err := rows.Scan(&ev.Episode, &ev.Task, &ev.K, &ev.Purpose, &ev.Success, &at); err != nil {
			return fmt.Errorf("journal history: %w", err)
		}
		ev.At = time.UnixMilli(at).UTC()
		evs = append(evs, ev)
	}
	for i := len(evs) - 1; i >= 0; i-- {
		h.add(evs[i])
	}
	return rows.Err()
}
