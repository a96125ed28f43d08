package rock

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// Backend starts the sandboxes behind the API; the server implements it
// on its pool, reset path, curriculum and limits.
type Backend interface {
	// Start returns a running sandbox for req: one replayed to a checkpoint
	// for an rbx:// image (req.Ref set), a plain one otherwise. It blocks
	// until the sandbox is ready.
	Start(ctx context.Context, req StartRequest) (Lease, error)
}

// StartRequest is what start_async asked for.
type StartRequest struct {
	// Image is the image as sent; Ref is its parsed rbx:// form, nil for a
	// plain image.
	Image string
	Ref   *ImageRef
	// Memory and Disk are bytes (0: the backend's default); CPUs cores.
	Memory, Disk int64
	CPUs         float64
	// FeedCurriculum sends an explicit-checkpoint episode's outcome to the
	// curriculum (header X-Rbx-Feed-Curriculum: true); @auto always feeds it.
	FeedCurriculum bool
}

// Lease is one started sandbox, held until Close.
type Lease interface {
	Sandbox() sandbox.Sandbox
	// Metadata describes the sandbox for get_status (for an rbx:// image:
	// the episode, task, k, purpose...). Keys and values are strings.
	Metadata() map[string]string
	// Prefix is the OpenAI messages of the reference prefix the sandbox was
	// replayed through (nil for a plain image).
	Prefix() []byte
	// KeepAlive tells the backend the sandbox is in use, so that no idle
	// timeout of its own ends it while the API's lasts.
	KeepAlive()
	// Gone is why the backend ended the sandbox (an episode timeout), nil
	// while it runs.
	Gone() error
	// Close ends the sandbox and removes it. For an rbx:// episode, verify
	// runs the task's verifier first and records the outcome (with the
	// curriculum when the episode feeds it); expired ends it as expired.
	Close(ctx context.Context, how CloseMode) (map[string]string, error)
}

// CloseMode says how a sandbox ends.
type CloseMode int

// How a sandbox ends.
const (
	// CloseVerify: stop; an episode is verified and its outcome recorded.
	CloseVerify CloseMode = iota
	// CloseExpired: the idle timeout ended it; nothing is recorded.
	CloseExpired
	// CloseDiscard: the server is shutting down or the start failed.
	CloseDiscard
)

// ImageRef is an image of the form rbx://TASK[/TRAJECTORY][@auto|@k]: a
// sandbox of the task replayed to checkpoint k of its reference (or of
// the named reference trajectory), k chosen by the curriculum for @auto
// (the default).
type ImageRef struct {
	Task       string
	Trajectory string
	// K is the explicit checkpoint; Auto means the curriculum's choice.
	K    int
	Auto bool
}

// Scheme prefixes images that name a task checkpoint.
const Scheme = "rbx://"

// ParseImage parses an rbx:// image; ok is false for a plain image.
func ParseImage(image string) (ref *ImageRef, ok bool, err error) {
	rest, ok := strings.CutPrefix(image, Scheme)
	if !ok {
		return nil, false, nil
	}
	ref = &ImageRef{Auto: true}
	path, at, hasAt := strings.Cut(rest, "@")
	if hasAt && at != "auto" {
		k, err := strconv.Atoi(at)
		if err != nil || k < 0 {
			return nil, true, fmt.Errorf("image %q: checkpoint %q: expected @auto or @k with k ≥ 0", image, at)
		}
		ref.K, ref.Auto = k, false
	}
	ref.Task, ref.Trajectory, _ = strings.Cut(path, "/")
	if ref.Task == "" || strings.Contains(ref.Trajectory, "/") || (strings.Contains(path, "/") && ref.Trajectory == "") {
		return nil, true, fmt.Errorf("image %q: expected rbx://TASK@auto, rbx://TASK@k or rbx://TASK/TRAJECTORY@k", image)
	}
	return ref, true, nil
}
