package server

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// referencesSchema keeps every adopted reference version beside the
// episode journal; version 1 (the reference loaded at start) is stored
// with the first refresh of its task, so that a later start can check the
// reference on disk is still the one the versions derive from.
const referencesSchema = `
CREATE TABLE IF NOT EXISTS serve_references (
	task       TEXT NOT NULL,
	version    INTEGER NOT NULL,
	parent     INTEGER NOT NULL,  -- 0 for version 1
	k          INTEGER NOT NULL,  -- the first k steps are the parent's
	episode    TEXT NOT NULL,     -- the adopted episode ('' for version 1)
	t          INTEGER NOT NULL,
	adopted    INTEGER NOT NULL,  -- unix ms
	trajectory TEXT NOT NULL,     -- the native trajectory JSON
	PRIMARY KEY (task, version)
);`

func (j *journal) initReferences(ctx context.Context) error {
	if _, err := j.db.ExecContext(ctx, referencesSchema); err != nil {
		return fmt.Errorf("create reference schema: %w", err)
	}
	return nil
}

// putReferences stores versions (insert or ignore: a stored version never
// changes) in one transaction.
func (j *journal) putReferences(ctx context.Context, vs []storedRef) (err error) {
	tx, err := j.db.BeginTx(context.WithoutCancel(ctx), nil)
	if err != nil {
		return fmt.Errorf("store reference: %w", err)
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback()
		}
	}()
	for _, v := range vs {
		var b bytes.Buffer
		if err := trajectory.Write(&b, v.ref); err != nil {
			return fmt.Errorf("store reference %s v%d: %w", v.meta.Task, v.meta.Version, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT OR IGNORE INTO serve_references
			(task, version, parent, k, episode, t, adopted, trajectory) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
			v.meta.Task, v.meta.Version, v.meta.Parent, v.meta.K, v.meta.Episode, v.meta.T, v.meta.Adopted.UnixMilli(), b.String())
		if err != nil {
			return fmt.Errorf("store reference %s v%d: %w", v.meta.Task, v.meta.Version, err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("store reference: %w", err)
	}
	return nil
}

// deleteReference removes a version the curriculum refused, so that a
// restart does not adopt it.
func (j *journal) deleteReference(ctx context.Context, task string, version int) error {
	_, err := j.db.ExecContext(context.WithoutCancel(ctx), "DELETE FROM serve_references WHERE task = ? AND version = ?", task, version)
	return err
}

// storedRef is one row of serve_references.
type storedRef struct {
	meta RefVersion
	ref  *trajectory.Trajectory
}

// loadReferences returns every stored version, by task then version.
func (j *journal) loadReferences(ctx context.Context) ([]storedRef, error) {
	rows, err := j.db.QueryContext(ctx, `SELECT task, version, parent, k, episode, t, adopted, trajectory
		FROM serve_references ORDER BY task, version`)
	if err != nil {
		return nil, fmt.Errorf("load references: %w", err)
	}
	defer rows.Close()
	var out []storedRef
	for rows.Next() {
		var v storedRef
		var adopted int64
		var doc string
		if err := rows.Scan(&v.meta.Task, &v.meta.Version, &v.meta.Parent, &v.meta.K, &v.meta.Episode, &v.meta.T, &adopted, &doc); err != nil {
			return nil, fmt.Errorf("load references: %w", err)
		}
		name := fmt.Sprintf("serve_references %s v%d", v.meta.Task, v.meta.Version)
		trs, err := trajectory.Parse(name, []byte(doc), false)
		if err != nil {
			return nil, fmt.Errorf("load references: %w", err)
		}
		if len(trs) != 1 {
			return nil, fmt.Errorf("load references: %s holds %d trajectories", name, len(trs))
		}
		v.ref, v.meta.ID, v.meta.Adopted = trs[0], trs[0].ID, time.UnixMilli(adopted).UTC()
		out = append(out, v)
	}
	return out, rows.Err()
}
