package docker

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agent"
	"github.com/rbx-sandbox/rbx/sandbox"
)

var (
	_ sandbox.Recycler        = (*Sandbox)(nil)
	_ sandbox.RecyclePreparer = (*Sandbox)(nil)
)

// recycleState is what a recyclable sandbox keeps from its Create.
type recycleState struct {
	mu sync.Mutex
	// fresh is the fresh listing (shared by shape) and the fingerprints of
	// the last proven one.
	fresh *recycle.Fresh
	// kept holds the content of the engine-written mount-root files.
	kept map[string][]byte
	// source is the image's baseline container.
	source string
	// shell is how the fresh session shell ran (session mode): the
	// recycle's exec becomes the next one (agent recycle -session).
	shell *agent.SessionSpec
	// broken is set by a failed Recycle: the sandbox must be removed.
	broken error
	// upper is the host path of the sandbox's upper layer when recycles
	// walk only its directories (see WithScopedRecycle), else "".
	upper string
	// prepared is how long Create spent on the fresh listing.
	prepared time.Duration
}

// prepareRecycle takes the fresh listing of a recyclable sandbox, keeps
// what no image holds, and finds the image's baseline container.
func (s *Sandbox) prepareRecycle(ctx context.Context, imageID string) error {
	src, err := s.rt.baselineFor(ctx, imageID)
	if err != nil {
		return err
	}
	upper, why := s.upperDir(ctx)
	if why != "" {
		s.rt.log.Debug("recycles walk every writable mount", "id", s.id, "why", why)
	}
	fresh, rep, err := s.freshListing(ctx, imageID, upper)
	if err != nil {
		return fmt.Errorf("fresh listing: %w", err)
	}
	kept := map[string][]byte{}
	for _, k := range rep.Kept {
		kept[string(k.Path)] = k.Data
	}
	s.rec = &recycleState{fresh: fresh, kept: kept, source: src, upper: upper}
	return nil
}

// freshListing records the sandbox's fresh listing. Once the host holds a
// listing of the image, the agent sends fingerprints under a new key (24
// bytes an entry) and the listing is shared; the first sandbox of an
// image, or one whose shape differs, sends its whole listing. The archive
// API is not used on the sandbox itself: reading a bind-mounted file
// through it changes the file's ctime.
func (s *Sandbox) freshListing(ctx context.Context, imageID, upper string) (*recycle.Fresh, agent.Report, error) {
	if upper != "" {
		release, err := s.rt.takeListing(ctx, imageID)
		if err != nil {
			return nil, agent.Report{}, err
		}
		if release != nil {
			defer release()
		}
	}
	if upper != "" && s.rt.fresh.Kept(imageID) {
		fr, rep, err := s.scopedListing(ctx, imageID, upper)
		if err == nil {
			s.rt.countListing(listingScoped)
			return fr, rep, nil
		}
		if !errors.Is(err, recycle.ErrNoListing) {
			return nil, agent.Report{}, err
		}
		s.rt.log.Debug("fresh listing: the scoped one does not fit the image's, taking the whole one", "id", s.id, "image", imageID, "why", err)
	} else if s.rt.listed(imageID, false) {
		key, err := recycle.NewKey()
		if err != nil {
			return nil, agent.Report{}, err
		}
		var fps agent.FreshFPs
		var rep agent.Report
		err = s.runAgentStream(ctx, []string{"scan", "-keep", "-fp"}, func(in io.Writer, out io.Reader) error {
			if _, err := in.Write(key[:]); err != nil {
				return err
			}
			if fps, err = agent.ReadFreshFPs(out); err != nil {
				return err
			}
			rep, err = agent.ReadFrame(out)
			return err
		})
		if err != nil {
			return nil, agent.Report{}, err
		}
		if fr, ok := s.rt.fresh.FromFPs(key, fps); ok {
			s.rt.countListing(listingFPs)
			s.rt.fresh.Keep(imageID, fr)
			return fr, rep, nil
		}
		s.rt.log.Debug("fresh listing: no listing of this shape held, taking the whole one", "id", s.id, "image", imageID)
	}
	rep, err := s.agentReport(ctx, "scan", "-keep")
	if err != nil {
		return nil, agent.Report{}, err
	}
	fr, err := s.rt.fresh.NewFresh(rep.Entries)
	if err != nil {
		return nil, agent.Report{}, err
	}
	s.rt.listed(imageID, true)
	s.rt.countListing(listingWhole)
	s.rt.fresh.Keep(imageID, fr)
	return fr, rep, nil
}

// releaseRecycle gives back the sandbox's share of its fresh listing.
func (s *Sandbox) releaseRecycle() {
	if s.rec == nil {
		return
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	s.rec.fresh.Release()
	if s.rec.broken == nil {
		s.rec.broken = errors.New("removed")
	}
}

// Recycle kills every process of the sandbox but its agent, removes IPC
// objects, restores every entry the episode changed, created or deleted
// (content from the image's baseline container, or the kept fresh copy),
// verifies the result against the fresh listing and, in session mode,
// opens a fresh session shell. See docs/recycling.md.
func (s *Sandbox) Recycle(ctx context.Context) (sandbox.RecycleReport, error) {
	start := time.Now()
	if s.rec == nil {
		return sandbox.RecycleReport{}, s.recycleErr("spec", fmt.Errorf("%w: created without Spec.Recycle", sandbox.ErrUnsupported))
	}
	st := s.rec
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.broken != nil {
		return sandbox.RecycleReport{}, s.recycleErr("broken", fmt.Errorf("an earlier recycle failed: %w", st.broken))
	}
	rep, reason, err := s.recycle(ctx, st)
	if err != nil {
		st.broken = err
		return rep, s.recycleErr(reason, err)
	}
	if s.mode == sandbox.ModeSession && st.shell == nil {
		if err := s.keeper.Reopen(ctx); err != nil {
			st.broken = err
			return rep, s.recycleErr("session", err)
		}
	}
	rep.Duration = time.Since(start)
	return rep, nil
}

func (s *Sandbox) recycleErr(reason string, err error) error {
	return &sandbox.RecycleError{ID: s.id, Reason: reason, Err: err}
}

// recycle is Recycle's scan, restore and verification, in PID 1 (see
// recycleMux) or else in one agent exec (see the agent's recycle command),
// which in session mode then becomes the next session shell; reason names
// the failing part.
func (s *Sandbox) recycle(ctx context.Context, st *recycleState) (rep sandbox.RecycleReport, reason string, err error) {
	s.keeper.Close() // the shell dies with the rest; a fresh one opens after
	args := []string{"recycle"}
	if st.upper != "" {
		args = append(args, "-scoped")
	}
	if s.mux.alive() {
		return s.recycleMux(ctx, st, args)
	}
	if st.shell != nil {
		args = append(args, "-session")
	}
	actx, cancel := context.WithTimeout(ctx, agentTimeout)
	defer cancel()
	c, err := s.startAgent(actx, args)
	if err != nil {
		return rep, "scan", err
	}
	reason, terr := s.restore(ctx, st, c.hj.Conn, c.out, &rep)
	if terr != nil || st.shell == nil {
		defer c.close()
		if err := c.wait(actx, terr); err != nil {
			return rep, reason, err
		}
		rep.Entries = st.fresh.Len()
		return rep, "", nil
	}
	if err := s.becomeSession(ctx, c, st.shell); err != nil {
		c.close()
		return rep, "session", err
	}
	rep.Entries = st.fresh.Len()
	return rep, "", nil
}

// recycleMux is recycle through PID 1's mux: the recycle runs in PID 1,
// then PID 1 spawns the next session shell; no exec is created.
func (s *Sandbox) recycleMux(ctx context.Context, st *recycleState, args []string) (rep sandbox.RecycleReport, reason string, err error) {
	reason = "scan"
	err = s.runAgentStream(ctx, args, func(in io.Writer, out io.Reader) error {
		var terr error
		reason, terr = s.restore(ctx, st, in, out, &rep)
		return terr
	})
	if err != nil {
		return rep, reason, err
	}
	if st.shell != nil {
		if err := s.spawnSession(ctx, st.shell); err != nil {
			return rep, "session", err
		}
	}
	rep.Entries = st.fresh.Len()
	return rep, "", nil
}

// restore is the talk of a recycle: fingerprints out, changes in, plan
// out, the restored entries in and accepted; reason names the part that
// failed.
func (s *Sandbox) restore(ctx context.Context, st *recycleState, in io.Writer, out io.Reader, rep *sandbox.RecycleReport) (string, error) {
	var scope *agent.Scope
	var dirs [][]byte
	if st.upper != "" {
		var err error
		if dirs, scope, err = scopeFor(out, st.upper); err != nil {
			return "scan", err
		}
		rep.Scoped = scope.Len()
	}
	proven, idx := st.fresh.ProvenIn(scope)
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
	plan, err := st.fresh.PlanIn(changes, idx)
	if err != nil {
		return "plan", err
	}
	rep.Removed, rep.Restored, rep.MetaFixed, rep.Untouched = len(plan.Remove), len(plan.Create), len(plan.Meta), len(plan.Proven)
	s.rt.log.Debug("recycle plan", "id", s.id, "remove", quoted(plan.Remove), "create", entryPaths(plan.Create), "meta", entryPaths(plan.Meta))
	sent := map[string]string{}
	if err := s.writePlan(ctx, st, plan, agent.NewPlanWriter(in), sent); err != nil {
		return "restore", err
	}
	after, err := agent.ReadFrame(out)
	if err != nil {
		return "restore", err
	}
	return "verify", st.fresh.Accept(plan, after, sent)
}

// becomeSession sends the shell's spec to the agent, which execs the
// session shell in its place, and runs the session protocol on the exec's
// streams.
func (s *Sandbox) becomeSession(ctx context.Context, c *agentConn, sp *agent.SessionSpec) error {
	if err := agent.WriteSessionSpec(c.hj.Conn, *sp); err != nil {
		return fmt.Errorf("send the session spec: %w", err)
	}
	conn := &shellConn{s: s, execID: c.execID, hj: c.hj}
	if err := s.runProtocol(ctx, conn, c.handOver()); err != nil {
		return fmt.Errorf("session shell after the recycle: %w", err)
	}
	s.keeper.Install(conn)
	return nil
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
