package prefix

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sync"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// Key identifies an entry: the state after steps [0, J) of one reference
// in the sandboxes of one task template on one image. An entry is never
// shared between tasks, images or references.
type Key struct {
	// Task digests everything that shapes the task's fresh sandboxes: its
	// spec and the contents of the files staged into them.
	Task string
	// Image is the image's content id (not its tag: a rebuilt image under
	// the same tag is another image).
	Image string
	// Ref digests the trajectory's variables and steps [0, J).
	Ref string
	J   int
}

// template is the part of a key shared by every entry of one template.
type template struct{ Task, Image string }

func (k Key) template() template { return template{k.Task, k.Image} }

// digests memoises prefix digests per trajectory (references are long-lived
// values; a bounded map is enough).
var digests = struct {
	sync.Mutex
	m map[*trajectory.Trajectory][]string
}{m: map[*trajectory.Trajectory][]string{}}

// prefixDigests returns d where d[j] digests traj's variables and steps
// [0, j), chained: d[j] = sha256(d[j-1], step j-1).
func prefixDigests(traj *trajectory.Trajectory) []string {
	digests.Lock()
	defer digests.Unlock()
	if d, ok := digests.m[traj]; ok {
		return d
	}
	if len(digests.m) > 4096 {
		clear(digests.m)
	}
	d := make([]string, len(traj.Steps)+1)
	vars, _ := json.Marshal(traj.Vars)
	h := sha256.Sum256(vars)
	d[0] = hex.EncodeToString(h[:])
	for i, s := range traj.Steps {
		b, _ := json.Marshal(s)
		h := sha256.Sum256(append([]byte(d[i]), b...))
		d[i+1] = hex.EncodeToString(h[:])
	}
	digests.m[traj] = d
	return d
}
