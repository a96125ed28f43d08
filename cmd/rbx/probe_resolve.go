package main

import (
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/rbx-sandbox/rbx/corpus"
	"github.com/rbx-sandbox/rbx/prefilter"
)

// tasksDir is --tasks (flag), else $RBX_TASKS, else the current directory.
func tasksDir(flag string) string {
	switch {
	case flag != "":
		return flag
	case os.Getenv("RBX_TASKS") != "":
		return os.Getenv("RBX_TASKS")
	}
	return "."
}

// locate resolves probe's argument (see locateTask).
func (o *probeOptions) locate() (corpus.Input, error) {
	return locateTask(o.arg, o.trajectory, tasksDir(o.tasks))
}

// locateTask resolves a command's TASK argument: a path (a task directory
// or file, a trajectory file), else a task id looked up under dir; its
// reference is the task's first valid trajectory in discovery order, the
// one `rbx serve` would serve, unless trajectory names another.
func locateTask(arg, trajectory, dir string) (corpus.Input, error) {
	if _, err := os.Stat(arg); err == nil || strings.ContainsRune(arg, os.PathSeparator) {
		return corpus.Locate(arg, trajectory)
	}
	items, err := prefilter.Discover(dir)
	if err != nil {
		return corpus.Input{}, fmt.Errorf("%w: task %q: %v", corpus.ErrInput, arg, err)
	}
	known := map[string]bool{}
	var ids []string
	for _, it := range items {
		if it.Err != nil || it.Task == nil {
			continue
		}
		if !known[it.Task.ID] {
			known[it.Task.ID] = true
			ids = append(ids, it.Task.ID)
		}
		if it.Task.ID == arg && (trajectory == "" || it.Traj.ID == trajectory) {
			return corpus.Input{TrajectoryPath: it.Key.File, ID: it.Traj.ID}, nil
		}
	}
	if known[arg] {
		return corpus.Input{}, fmt.Errorf("%w: task %q under %s has no trajectory %q", corpus.ErrInput, arg, dir, trajectory)
	}
	return corpus.Input{}, fmt.Errorf("%w: %s", corpus.ErrInput, unknownTask(arg, dir, ids))
}

// unknownTask says that id is neither a path nor a task under dir, with
// the close matches and the known ids.
func unknownTask(id, dir string, ids []string) string {
	sort.Strings(ids)
	msg := fmt.Sprintf("%q is not a path, nor the id of a task with a valid trajectory under %s (--tasks DIR or $RBX_TASKS)", id, dir)
	if close := closeMatches(id, ids); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	switch {
	case len(ids) == 0:
		return msg + "; no task found there"
	case len(ids) > 30:
		return fmt.Sprintf("%s; %d tasks there, such as %s, ...", msg, len(ids), strings.Join(ids[:30], ", "))
	}
	return fmt.Sprintf("%s; known tasks: %s", msg, strings.Join(ids, ", "))
}

// closeMatches are the ids within a small edit distance of id, or that
// contain it (or are contained in it), nearest first.
func closeMatches(id string, ids []string) []string {
	type cand struct {
		id string
		d  int
	}
	var cs []cand
	for _, c := range ids {
		d := editDistance(strings.ToLower(id), strings.ToLower(c))
		if d <= max(2, len(id)/4) || strings.Contains(c, id) || strings.Contains(id, c) {
			cs = append(cs, cand{c, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].d < cs[j].d })
	var out []string
	for i := 0; i < len(cs) && i < 5; i++ {
		out = append(out, cs[i].id)
	}
	return out
}

// editDistance is Levenshtein's distance between a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
