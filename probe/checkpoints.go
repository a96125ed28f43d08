package probe

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// ErrCheckpoints is returned for a malformed or empty checkpoint selection.
var ErrCheckpoints = errors.New("invalid checkpoint selection")

// Selection picks checkpoints: all valid k < T, every N-th of them, or a
// list. k = T (the reference's end state, where any policy only submits)
// is probed only when listed.
type Selection struct {
	All   bool
	Every int
	List  []int
}

// ParseCheckpoints reads "all", "every:N" or a list such as "0,4,8-11".
func ParseCheckpoints(s string) (Selection, error) {
	switch s = strings.TrimSpace(s); {
	case s == "" || s == "all":
		return Selection{All: true}, nil
	case strings.HasPrefix(s, "every:"):
		n, err := strconv.Atoi(strings.TrimPrefix(s, "every:"))
		if err != nil || n < 1 {
			return Selection{}, fmt.Errorf("%w: %q: expected every:N with N ≥ 1", ErrCheckpoints, s)
		}
		return Selection{Every: n}, nil
	}
	var list []int
	for _, f := range strings.Split(s, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(f), "-")
		a, err1 := strconv.Atoi(lo)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.Atoi(hi)
		}
		if err1 != nil || err2 != nil || a < 0 || b < a {
			return Selection{}, fmt.Errorf("%w: %q: expected all, every:N or a list such as 0,4,8-11", ErrCheckpoints, f)
		}
		for k := a; k <= b; k++ {
			list = append(list, k)
		}
	}
	slices.Sort(list)
	return Selection{List: slices.Compact(list)}, nil
}

// Resolve returns the selected checkpoints of traj in increasing order.
// Listed checkpoints must be valid.
func (s Selection) Resolve(traj *trajectory.Trajectory) ([]int, error) {
	var ks []int
	if len(s.List) > 0 {
		for _, k := range s.List {
			if !traj.ValidCheckpoint(k) {
				return nil, fmt.Errorf("%w: k = %d is not a valid checkpoint of %s (0 ≤ k ≤ %d, not right after a step with \"checkpoint\": false)", ErrCheckpoints, k, traj.ID, traj.Len())
			}
		}
		return slices.Clone(s.List), nil
	}
	var valid []int
	for k := 0; k < traj.Len(); k++ {
		if traj.ValidCheckpoint(k) {
			valid = append(valid, k)
		}
	}
	for i, k := range valid {
		if s.Every <= 1 || i%s.Every == 0 {
			ks = append(ks, k)
		}
	}
	if len(ks) == 0 {
		return nil, fmt.Errorf("%w: %s has no checkpoint to probe", ErrCheckpoints, traj.ID)
	}
	return ks, nil
}
