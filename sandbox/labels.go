package sandbox

import (
	"strconv"
	"time"
)

// Label keys carried by every sandbox rbx creates, so that leftovers of a
// crashed orchestrator can be found and removed.
const (
	LabelManaged = "rbx.managed"
	LabelOwner   = "rbx.owner"
	LabelTask    = "rbx.task"
	LabelCreated = "rbx.created"
	// LabelKeep marks a sandbox kept on purpose (for example by
	// `rbx replay --keep`): Reap leaves it alone unless WithAll or
	// WithOlderThan is given.
	LabelKeep = "rbx.keep"
)

// Owner identifies this process among orchestrators, as
// "<hostname>/<pid>/<process start time>", so that OwnerAlive can tell a
// dead owner from a live one even after its pid was recycled.
var Owner = newOwner()

// ManagedLabels returns the rbx.* labels for a new sandbox merged over extra.
func ManagedLabels(extra map[string]string) map[string]string {
	l := make(map[string]string, len(extra)+3)
	for k, v := range extra {
		l[k] = v
	}
	l[LabelManaged] = "true"
	l[LabelOwner] = Owner
	l[LabelCreated] = strconv.FormatInt(time.Now().Unix(), 10)
	return l
}
