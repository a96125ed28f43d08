package recycletest

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// ExecEpisodes are Episodes for a backend whose recycle is an exec
// (containerd, Kubernetes; Docker's runs in PID 1 through its mux): the
// runtime reads the sandbox's /etc/group to start any exec, so an episode
// that made it a directory cannot be recycled there — the exec fails,
// Recycle refuses and the sandbox is removed.
func ExecEpisodes(image string) []Episode {
	eps := Episodes(image)
	for i := range eps {
		if eps[i].Name == "etc-group-dir" {
			eps[i].Refused = true
		}
	}
	return eps
}

// Only keeps the episodes $RBX_RECYCLE_EPISODES names (comma-separated;
// all when unset), to aim a run at a few while debugging.
func Only(eps []Episode) []Episode {
	names := os.Getenv("RBX_RECYCLE_EPISODES")
	if names == "" {
		return eps
	}
	var out []Episode
	for _, ep := range eps {
		if slices.Contains(strings.Split(names, ","), ep.Name) {
			out = append(out, ep)
		}
	}
	return out
}

// Rounds is rounds, or $RBX_RECYCLE_ROUNDS when set (shorter runs while
// debugging; the callers' totals are then not asserted).
func Rounds(rounds int) int {
	if n, err := strconv.Atoi(os.Getenv("RBX_RECYCLE_ROUNDS")); err == nil {
		return n
	}
	return rounds
}

// RunRounds recycles the sandbox create makes through eps, rounds times in
// turn, and requires after each recycle that its digest is the fresh
// sandbox's; an episode the design refuses replaces the sandbox with a new
// one. It returns the recycles proved fresh and refused.
func RunRounds(t *testing.T, create func() sandbox.Sandbox, eps []Episode, rounds int, helpers Helpers) (proved, refused int) {
	t.Helper()
	sb := create()
	fresh := Digest(t, sb)
	for round := 0; round < rounds; round++ {
		ep := eps[round%len(eps)]
		if ok, _ := RunEpisode(t, sb, ep, helpers); !ok {
			refused++
			sb = create()
			continue
		}
		RequireSameDigest(t, fresh, Digest(t, sb), fmt.Sprintf("round %d, after %s", round, ep.Name))
		proved++
	}
	return proved, refused
}
