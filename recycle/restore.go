package recycle

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"

	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
)

// Opener opens the image's copy of the regular file e for a restore — the
// image's content as the engine holds it, never the sandbox's — and
// checks it has e's shape (type, mode, owner, size).
type Opener func(ctx context.Context, e agent.Entry) (io.ReadCloser, error)

// Restore is the host's side of one recycle, the same on every backend:
// the talk with the agent's recycle command once it runs in the sandbox
// (in PID 1, or in an exec), whatever carries its streams.
type Restore struct {
	// Fresh is the sandbox's fresh listing and last proven fingerprints.
	Fresh *Fresh
	// Kept holds the content of the mount-root files no image holds.
	Kept map[string][]byte
	// Upper is the host path of the sandbox's upper layer when the walk
	// is scoped by it (see UpperDirs), "" for a walk of every mount.
	Upper string
	// Open reads a file of the image.
	Open Opener
	// Log gets the plan at debug level, under ID.
	Log *slog.Logger
	ID  string
}

// Talk is the recycle's talk on the agent's in and out: fingerprints out,
// changes in, the plan out with the image's content, the restored entries
// in and accepted (the sandbox's new proven listing). reason names the
// part that failed ("scan", "plan", "restore", "verify"); rep gets the
// counts.
func (r *Restore) Talk(ctx context.Context, in io.Writer, out io.Reader, rep *sandbox.RecycleReport) (reason string, err error) {
	var scope *agent.Scope
	var dirs [][]byte
	if r.Upper != "" {
		if dirs, scope, err = ScopeFor(out, r.Upper); err != nil {
			return "scan", err
		}
		rep.Scoped = scope.Len()
	}
	proven, idx := r.Fresh.ProvenIn(scope)
	if err := agent.WriteProven(in, proven); err != nil {
		return "scan", fmt.Errorf("send fingerprints: %w", err)
	}
	if scope != nil {
		if err := agent.WriteScope(in, dirs); err != nil {
			return "scan", fmt.Errorf("send the scope: %w", err)
		}
	}
	changes, err := agent.ReadFrame(out)
	if err != nil {
		return "scan", err
	}
	rep.Killed, rep.IPCRemoved = changes.State.Killed, changes.State.IPCRemoved
	plan, err := r.Fresh.PlanIn(changes, idx)
	if err != nil {
		return "plan", err
	}
	rep.Removed, rep.Restored, rep.MetaFixed, rep.Untouched = len(plan.Remove), len(plan.Create), len(plan.Meta), len(plan.Proven)
	if r.Log != nil {
		r.Log.Debug("recycle plan", "id", r.ID, "remove", quoted(plan.Remove), "create", entryPaths(plan.Create), "meta", entryPaths(plan.Meta))
	}
	sent := map[string]string{}
	if err := r.writePlan(ctx, plan, agent.NewPlanWriter(in), sent); err != nil {
		return "restore", err
	}
	after, err := agent.ReadFrame(out)
	if err != nil {
		return "restore", err
	}
	rep.Entries = r.Fresh.Len()
	return "verify", r.Fresh.Accept(plan, after, sent)
}

// writePlan writes plan for the agent, reading each file's content from
// the image (or the kept copies) as the agent reads it, and records the
// SHA-256 of what it sent in sent.
func (r *Restore) writePlan(ctx context.Context, plan Plan, w *agent.PlanWriter, sent map[string]string) error {
	for _, p := range plan.Remove {
		if err := w.Write(agent.Op{Op: agent.OpRemove, Path: p}, nil); err != nil {
			return err
		}
	}
	for _, e := range plan.Create {
		if err := r.writeCreate(ctx, e, w, sent); err != nil {
			return err
		}
	}
	for _, e := range plan.Meta {
		op := agent.Op{Op: agent.OpMeta, Path: e.Path, Type: e.Type, Mode: e.Mode, UID: e.UID, GID: e.GID, Mtime: e.Mtime,
			Xattrs: e.Xattrs, Flags: e.Flags, NoFlags: e.NoFlags}
		if err := w.Write(op, nil); err != nil {
			return err
		}
	}
	return w.Close()
}

// writeCreate writes the op recreating e, with a file's content.
func (r *Restore) writeCreate(ctx context.Context, e agent.Entry, w *agent.PlanWriter, sent map[string]string) error {
	op := agent.Op{Op: agent.OpCreate, Path: e.Path, Type: e.Type, Mode: e.Mode, UID: e.UID, GID: e.GID,
		Size: e.Size, Link: e.Link, Rdev: e.Rdev, Mtime: e.Mtime, InPlace: e.MountRoot,
		Xattrs: e.Xattrs, Flags: e.Flags, NoFlags: e.NoFlags, HardLink: r.Fresh.HardLinkOf(e.Path)}
	if e.Type != agent.TypeFile || op.HardLink != nil {
		return w.Write(op, nil)
	}
	var src io.Reader
	if data, ok := r.Kept[string(e.Path)]; ok {
		src = bytes.NewReader(data)
	} else if e.MountRoot {
		return fmt.Errorf("%q: no fresh copy of a mount root", e.Path)
	} else {
		rc, err := r.Open(ctx, e)
		if err != nil {
			return fmt.Errorf("restore from the image: %w", err)
		}
		defer rc.Close()
		src = rc
	}
	h := sha256.New()
	if err := w.Write(op, io.TeeReader(src, h)); err != nil {
		return err
	}
	sent[string(e.Path)] = hex.EncodeToString(h.Sum(nil))
	return nil
}

// ScopeFor waits for the agent's word that the sandbox is quiet, then
// reads the upper layer's directories: the scope of this walk.
func ScopeFor(out io.Reader, upper string) ([][]byte, *agent.Scope, error) {
	quiet := make([]byte, len(agent.Quiet))
	if _, err := io.ReadFull(out, quiet); err != nil || string(quiet) != agent.Quiet {
		return nil, nil, fmt.Errorf("agent did not say it is quiet (%q, %v)", quiet, err)
	}
	dirs, err := UpperDirs(upper)
	if err != nil {
		return nil, nil, err
	}
	scope, err := agent.NewScope(dirs)
	return dirs, scope, err
}

// KeptFiles indexes a fresh scan's kept mount-root files by path.
func KeptFiles(rep agent.Report) map[string][]byte {
	kept := map[string][]byte{}
	for _, k := range rep.Kept {
		kept[string(k.Path)] = k.Data
	}
	return kept
}

// quoted and entryPaths render a plan's paths for the debug log.
func quoted(paths [][]byte) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = fmt.Sprintf("%q", p)
	}
	return out
}

func entryPaths(ents []agent.Entry) []string {
	out := make([]string, len(ents))
	for i, e := range ents {
		out[i] = fmt.Sprintf("%q", e.Path)
	}
	return out
}
