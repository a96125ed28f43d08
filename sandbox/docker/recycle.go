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
	s.rec = &recycleState{fresh: fresh, kept: recycle.KeptFiles(rep), source: src, upper: upper}
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
		fr, rep, ok, err := s.rt.fresh.ListByFPs(ctx, s.runAgentStream, imageID)
		if err != nil {
			return nil, agent.Report{}, err
		}
		if ok {
			s.rt.countListing(listingFPs)
			return fr, rep, nil
		}
		s.rt.log.Debug("fresh listing: no listing of this shape held, taking the whole one", "id", s.id, "image", imageID)
	}
	fr, rep, err := s.rt.fresh.ListWhole(ctx, s.runAgentStream, imageID)
	if err != nil {
		return nil, agent.Report{}, err
	}
	s.rt.listed(imageID, true)
	s.rt.countListing(listingWhole)
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
	actx, cancel := context.WithTimeout(ctx, recycle.AgentTimeout)
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

// restore is the talk of a recycle (recycle.Restore) with content from
// the image's baseline container; reason names the part that failed.
func (s *Sandbox) restore(ctx context.Context, st *recycleState, in io.Writer, out io.Reader, rep *sandbox.RecycleReport) (string, error) {
	r := &recycle.Restore{Fresh: st.fresh, Kept: st.kept, Upper: st.upper, Log: s.rt.log, ID: s.id,
		Open: func(ctx context.Context, e agent.Entry) (io.ReadCloser, error) {
			return s.rt.openFile(ctx, st.source, e)
		}}
	return r.Talk(ctx, in, out, rep)
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
