package sandbox

import (
	"crypto/rand"
	"encoding/hex"
	"os"
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
)

// Owner identifies this process among orchestrators: host pid plus a random
// suffix, so a recycled pid is not mistaken for a live owner.
var Owner = newOwner()

func newOwner() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return strconv.Itoa(os.Getpid()) + "-" + hex.EncodeToString(b[:])
}

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
