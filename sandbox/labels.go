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

// Annotation keys rbx sets: values that are not legal label values.
const (
	// AnnotationTask holds the full task id when LabelTask had to be
	// shortened by LabelValue (ids may be 128 characters).
	AnnotationTask = "rbx.task"
	// AnnotationWorkdir holds the sandbox's workdir, for Open.
	AnnotationWorkdir = "rbx.workdir"
)

// TaskID returns the task id of in: its AnnotationTask when present, else
// its LabelTask.
func TaskID(in Info) string {
	if id := in.Annotations[AnnotationTask]; id != "" {
		return id
	}
	return in.Labels[LabelTask]
}

// Owner identifies this process among orchestrators, as
// "<hostname>_<pid>_<process start time>" (a legal label value, see
// ownerHost), so that OwnerAlive can tell a dead owner from a live one even
// after its pid was recycled.
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
