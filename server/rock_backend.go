package server

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/server/rock"
)

// rockBackend starts the ROCK API's sandboxes: episodes for rbx:// images
// (through pick, open and admit, as a reset of one), plain sandboxes for
// other images. Both hold one --max-episodes slot while they run.
type rockBackend struct {
	s       *Server
	rt      pool.Creator
	network string
}

// LabelROCK marks plain sandboxes started through the ROCK API.
const LabelROCK = "rbx.rock"

// rockOutputCap is a plain sandbox's output cap per exec: ROLL reads
// files with `head -c 10MB` through execute.
const rockOutputCap = 16 << 20

// imageWorkdirer is a runtime that can tell an image's working directory.
type imageWorkdirer interface {
	ImageWorkdir(ctx context.Context, ref string) (string, error)
}

func (b *rockBackend) Start(ctx context.Context, req rock.StartRequest) (rock.Lease, error) {
	if req.Ref != nil {
		return b.s.startEpisodeLease(ctx, req)
	}
	if b.rt == nil {
		return nil, fmt.Errorf("image %q: this server starts rbx:// images only (rbx://TASK@auto)", req.Image)
	}
	claim, aerr := b.s.reserve(1)
	if aerr != nil {
		return nil, aerr
	}
	spec := sandbox.Spec{Image: req.Image, Workdir: "/", Network: b.network, OutputCap: rockOutputCap,
		Labels: map[string]string{LabelROCK: "true"},
		Limits: sandbox.Limits{CPUs: req.CPUs, MemoryBytes: req.Memory, DiskBytes: req.Disk}}
	if iw, ok := b.rt.(imageWorkdirer); ok {
		if wd, err := iw.ImageWorkdir(ctx, req.Image); err == nil && strings.HasPrefix(wd, "/") {
			spec.Workdir = wd // sessions start where the image says, as under ROCK
		}
	}
	// A plain sandbox counts against the budget like an episode's, from
	// before its creation until its removal has ended.
	lease, err := b.s.rs.Budget().Acquire(ctx, 1)
	if err != nil {
		claim.release()
		return nil, fmt.Errorf("start image %q: %w", req.Image, err)
	}
	slot := lease.Slot()
	slot.Mark(capacity.InUse)
	sb, err := b.rt.Create(ctx, spec)
	if err != nil {
		slot.Release()
		claim.release()
		return nil, fmt.Errorf("start image %q: %w", req.Image, err)
	}
	meta := map[string]string{"rbx.kind": "image", "rbx.sandbox": sb.ID()}
	return &rock.SandboxLease{SB: sb, Meta: meta, Release: func() { slot.Release(); claim.release() }}, nil
}

// startEpisodeLease resets one episode of req.Ref's task to its checkpoint.
func (s *Server) startEpisodeLease(ctx context.Context, req rock.StartRequest) (rock.Lease, error) {
	ref := req.Ref
	rr := ResetRequest{Task: ref.Task, FeedCurriculum: req.FeedCurriculum}
	if !ref.Auto {
		rr.Checkpoint = json.RawMessage(strconv.Itoa(ref.K))
	}
	var (
		e       *Entry
		k       int
		purpose string
		claim   *slots
		aerr    *APIError
	)
	if ref.Trajectory == "" || s.isCurrent(ref.Task, ref.Trajectory) {
		e, k, purpose, claim, aerr = s.pick(rr)
	} else {
		e, k, purpose, claim, aerr = s.pickVersion(ref)
	}
	if aerr != nil {
		return nil, aerr
	}
	defer claim.release()
	ep, info, aerr := s.open(ctx, e, k, nil, nil)
	if aerr != nil {
		return nil, aerr
	}
	feed := purpose != string(curriculum.PurposeExplicit) || req.FeedCurriculum
	ep.rec.Purpose, ep.rec.Feeds = purpose, feed && k < e.Ref.Len() && e.Ref.ValidCheckpoint(k)
	if aerr := s.admit(ctx, ep, claim); aerr != nil {
		s.discard([]*episode{ep})
		return nil, aerr
	}
	return newEpisodeLease(s, ep, info), nil
}

// isCurrent reports whether traj names the task's current reference (by
// trajectory id or as vN).
func (s *Server) isCurrent(task, traj string) bool {
	e := s.refs.current(task)
	return e != nil && (e.Ref.ID == traj || traj == "v"+strconv.Itoa(e.version))
}

// pickVersion finds an older reference version by trajectory id or vN and
// claims a slot; only an explicit k works there (the curriculum serves
// the current version).
func (s *Server) pickVersion(ref *rock.ImageRef) (*Entry, int, string, *slots, *APIError) {
	var e *Entry
	for _, v := range s.refs.list(ref.Task) {
		if v.ID == ref.Trajectory || "v"+strconv.Itoa(v.Version) == ref.Trajectory {
			e = s.refs.at(ref.Task, v.Version)
		}
	}
	if e == nil {
		return nil, 0, "", nil, apiErr(404, CodeUnknownVersion, "task %q has no reference trajectory %q (GET /v1/tasks/%s/references lists them)", ref.Task, ref.Trajectory, ref.Task)
	}
	if ref.Auto {
		return nil, 0, "", nil, apiErr(400, CodeBadCheckpoint, "rbx://%s/%s@auto: the curriculum serves the current reference only; give @k", ref.Task, ref.Trajectory)
	}
	claim, aerr := s.reserve(1)
	if aerr != nil {
		return nil, 0, "", nil, aerr
	}
	return e, ref.K, string(curriculum.PurposeExplicit), claim, nil
}
