package prefilter

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Key identifies a trajectory across runs: the file it was found in (as
// discovered), its line in a JSONL file, its id, and a hash of its content
// and its task file, so an edited trajectory or task is judged again by
// --resume.
type Key struct {
	File string `json:"file"`
	Line int    `json:"line,omitempty"`
	ID   string `json:"id,omitempty"`
	Hash string `json:"hash"`
}

// String is "file[:line]#id@hash", the form --resume matches on.
func (k Key) String() string {
	s := k.File
	if k.Line > 0 {
		s += fmt.Sprintf(":%d", k.Line)
	}
	return s + "#" + k.ID + "@" + k.Hash
}

// Item is one trajectory to judge with its task, or a document (or JSONL
// line) that could not be loaded, which is rejected with parse_error.
type Item struct {
	Key  Key
	Traj *trajectory.Trajectory
	Task *task.Task
	// Err is why the trajectory or its task could not be loaded.
	Err error
	// taskData is the task file's content, copied into a kept set verbatim.
	taskData []byte
}

func hashOf(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil)[:8])
}
