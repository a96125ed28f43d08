package main

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/rbx-sandbox/rbx/prefilter"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server"
)

// reloader reloads --tasks on SIGHUP and when the directory changes
// (polled every --reload-interval): new tasks are served from then on,
// changed ones refused and named (server.AddTasks).
type reloader struct {
	o      *serveOptions
	s      Streams
	log    *slog.Logger
	srv    *server.Server
	rt     sandbox.Runtime
	images map[string]bool // present: checked at start or by a reload
	last   [32]byte        // the directory's fingerprint at the last load
}

// newReloader returns the reloader of a server that loaded entries from
// the directories whose fingerprint was loaded just before.
func newReloader(o *serveOptions, s Streams, log *slog.Logger, srv *server.Server, rt sandbox.Runtime, entries []server.Entry, loaded [32]byte) *reloader {
	r := &reloader{o: o, s: s, log: log, srv: srv, rt: rt, images: map[string]bool{}, last: loaded}
	for _, img := range server.Images(entries) {
		r.images[img] = true
	}
	return r
}

// run reloads until ctx ends.
func (r *reloader) run(ctx context.Context) {
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	var tick <-chan time.Time
	if r.o.reloadEvery > 0 {
		t := time.NewTicker(r.o.reloadEvery)
		defer t.Stop()
		tick = t.C
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-hup:
			r.reload(ctx, "SIGHUP")
		case <-tick:
			if fp, err := tasksFingerprint(r.o.tasks); err == nil && fp != r.last {
				r.reload(ctx, "the directory changed")
			}
		}
	}
}

// reload loads --tasks again and hands it to the server: what the task
// policy refuses or whose image cannot be made present is left out and
// said, as at start.
func (r *reloader) reload(ctx context.Context, why string) {
	r.last, _ = tasksFingerprint(r.o.tasks)
	entries, err := discoverServeTasks(r.s, r.o.tasks)
	if err != nil {
		r.log.Warn("serve: reload tasks", "why", why, "err", err)
		return
	}
	var take []server.Entry
	var refused []error
	for _, e := range entries {
		if err := r.o.rt.admit(e.Task); err != nil {
			refused = append(refused, fmt.Errorf("task %q: %w", e.Task.ID, err))
			continue
		}
		if err := buildTaskImages(ctx, r.rt, io.Discard, e.Task); err != nil {
			refused = append(refused, fmt.Errorf("task %q: %w", e.Task.ID, err))
			continue
		}
		img := server.Images([]server.Entry{e})[0]
		if !r.images[img] {
			if err := ensureImage(ctx, r.rt, r.o.rt, img); err != nil {
				refused = append(refused, fmt.Errorf("task %q: image %s: %w", e.Task.ID, img, err))
				continue
			}
			r.images[img] = true
		}
		take = append(take, e)
	}
	res, err := r.srv.AddTasks(ctx, take)
	if err != nil {
		r.log.Warn("serve: reload tasks", "why", why, "err", err)
		return
	}
	refused = append(refused, res.Refused...)
	for _, e := range refused {
		r.log.Warn("serve: reload: task refused", "err", e)
	}
	added := "none"
	if len(res.Added) > 0 {
		added = strings.Join(res.Added, " ")
	}
	fmt.Fprintf(r.s.ErrOut, "rbx serve: tasks reloaded (%s): %d added (%s), %d unchanged, %d refused\n",
		why, len(res.Added), added, res.Unchanged, len(refused))
}

// tasksFingerprint digests what a reload reads under dirs (the files
// prefilter.Find walks): each task and trajectory file's path, size and
// modification time, through symlinks (a mounted ConfigMap's update swaps
// a hidden directory under its links), not contents: a directory of
// thousands of tasks is walked every interval.
func tasksFingerprint(dirs []string) ([32]byte, error) {
	h := sha256.New()
	var errs []error
	for _, dir := range dirs {
		errs = append(errs, prefilter.WalkFiles(dir, func(p string, info fs.FileInfo) error {
			if slices.Contains([]string{".yaml", ".yml", ".json", ".jsonl"}, filepath.Ext(p)) {
				fmt.Fprintf(h, "%s\x00%d\x00%d\n", p, info.Size(), info.ModTime().UnixNano())
			}
			return nil
		}))
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum, errors.Join(errs...)
}
