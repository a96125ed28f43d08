package importer

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// atifVersion reads ATIF's schema_version in the spellings producers
// write: "ATIF-v1.4" (the RFC's), "ATIF-v1.x", "v1.4", "1.4", "ATIF v1".
var atifVersion = regexp.MustCompile(`(?i)^\s*(atif[-_ ]?)?v?(\d+)(\.(\d+|x))*\s*$`)

// atifV1 reports whether v names a version 1 of ATIF.
func atifV1(v string) bool {
	m := atifVersion.FindStringSubmatch(v)
	return m != nil && m[2] == "1"
}

// atifResultIndex is every observation result of a file by its call id,
// in file order: a result may come in the call's own step or in a later
// one (producers that log the tool's result as the next event), and a
// call id may be used again (each use takes the next result).
//
// Results without a source_call_id (Harbor's mini-swe-agent converter
// writes its chat-completions results so) belong to their own step: they
// go, in order, to its calls that have no result by id, or to the step
// itself when it has no calls (a text-mode agent).
type atifResultIndex struct {
	byID    map[string][]ATIFResult
	unbound map[int][]ATIFResult // step index → its results without an id
}

func atifResults(steps []ATIFStep) atifResultIndex {
	idx := atifResultIndex{byID: map[string][]ATIFResult{}, unbound: map[int][]ATIFResult{}}
	for i, st := range steps {
		if st.Observation == nil {
			continue
		}
		for _, r := range st.Observation.Results {
			if r.Extra == nil && st.Extra != nil && len(st.Observation.Results) == 1 {
				r.Extra = st.Extra.Metadata
			}
			if r.SourceCallID == "" && len(st.Observation.Results) == 1 && len(st.ToolCalls) > 1 {
				// One result for a turn of several calls (Terminus: the
				// terminal after all its keystrokes): the last call's.
				r.SourceCallID = st.ToolCalls[lastActing(len(st.ToolCalls), func(j int) string { return st.ToolCalls[j].FunctionName })].ToolCallID
			}
			if r.SourceCallID == "" {
				idx.unbound[i] = append(idx.unbound[i], r)
				continue
			}
			idx.byID[r.SourceCallID] = append(idx.byID[r.SourceCallID], r)
		}
	}
	return idx
}

// lastActing is the index of the last of a turn's n calls (named by
// name) that acts, not counting those that only end the turn or the run
// (Terminus' mark_task_complete): the call a turn's one result answers.
func lastActing(n int, name func(int) string) int {
	last := n - 1
	for last > 0 && isTurnEnd(name(last)) {
		last--
	}
	return last
}

// isTurnEnd reports whether a call only ends the agent's turn or run.
func isTurnEnd(name string) bool {
	switch strings.ToLower(name) {
	case "mark_task_complete", "task_complete", "submit", "finish":
		return true
	}
	return false
}

// takeFor returns the result of call id of step i: by its id, else the
// step's next result without one.
func (idx atifResultIndex) takeFor(i int, id string) (ATIFResult, bool) {
	if r, ok := idx.take(id); ok {
		return r, true
	}
	rs := idx.unbound[i]
	if len(rs) == 0 {
		return ATIFResult{}, false
	}
	idx.unbound[i] = rs[1:]
	return rs[0], true
}

// take returns the next result of call id.
func (idx atifResultIndex) take(id string) (ATIFResult, bool) {
	rs := idx.byID[id]
	if id == "" || len(rs) == 0 {
		return ATIFResult{}, false
	}
	idx.byID[id] = rs[1:]
	return rs[0], true
}

// exitCodeLine is how Claude Code's Bash reports a command's failure:
// "Exit code 2" first, then the output.
var exitCodeLine = regexp.MustCompile(`^Exit code (\d+)\b`)

// atifFailed records that s failed when recorded (the result's is_error):
// a file action as a failure replay must meet again, a shell step with
// the exit code its result names (Claude Code's "Exit code N"), else
// with its code left unknown.
func atifFailed(s *trajectory.Step, out string) {
	switch {
	case s.Action.File():
		recordFailure(s, out)
	case s.Action == kindNotebook, s.Action == kindPatch:
		one := 1
		s.Observation = &trajectory.Observation{Output: out, ExitCode: &one}
	case s.Action == trajectory.KindShell && s.Observation != nil:
		if m := exitCodeLine.FindStringSubmatch(out); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil && n != 0 {
				// The line is the tool's, not the command's output.
				s.Observation.ExitCode = &n
				s.Observation.Output = strings.TrimPrefix(strings.TrimPrefix(out, m[0]), "\n")
			}
		}
		recordTimeout(s)
	}
}

// timedOutLine is how Claude Code's Bash says it killed a command at its
// timeout: "Command timed out after 2m 0s".
var timedOutLine = regexp.MustCompile(`^Command timed out after ((?:\d+h)? ?(?:\d+m)? ?(?:\d+(?:\.\d+)?s)?)`)

// recordTimeout marks a shell step whose command the agent's tool killed
// at its timeout: replay runs it with that timeout, expects it to time
// out (or accepts that it ended sooner), and compares neither its exit
// code (the kill's) nor its partial output.
func recordTimeout(s *trajectory.Step) {
	m := timedOutLine.FindStringSubmatch(s.Observation.Output)
	if m == nil {
		return
	}
	d, err := time.ParseDuration(strings.ReplaceAll(m[1], " ", ""))
	if err != nil || d <= 0 {
		return
	}
	s.Timeout = task.Duration(d)
	s.Observation.TimedOut, s.Observation.ExitCode = true, nil
	s.Compare = "ignore"
}
