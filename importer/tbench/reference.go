package tbench

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// shellOpts is what a script-level `set` line asks for.
type shellOpts struct {
	errexit, nounset *bool
	// keep are the options safe as shell state (pipefail, xtrace, errtrace...),
	// as `set` arguments.
	keep []string
}

// parseSet reads a plain `set` command (no other command on the step);
// ok is false for anything else, including `set --` positional changes.
func parseSet(cmd string) (o shellOpts, ok bool) {
	f := strings.Fields(cmd)
	if len(f) < 2 || f[0] != "set" || strings.ContainsAny(cmd, ";&|\n$`") {
		return o, false
	}
	on, off := true, false
	for i := 1; i < len(f); i++ {
		a := f[i]
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') || a == "--" {
			return shellOpts{}, false
		}
		val, sign := &on, string(a[0])
		if a[0] == '+' {
			val = &off
		}
		for _, ch := range a[1:] {
			switch ch {
			case 'e':
				o.errexit = val
			case 'u':
				o.nounset = val
			case 'o':
				if i+1 >= len(f) {
					return shellOpts{}, false
				}
				i++
				switch f[i] {
				case "errexit":
					o.errexit = val
				case "nounset":
					o.nounset = val
				default:
					o.keep = append(o.keep, sign+"o", f[i])
				}
			default:
				o.keep = append(o.keep, sign+string(ch))
			}
		}
	}
	return o, true
}

// reference is the solution as a trajectory: one shell step per top-level
// command. Script-level errexit is replay semantics, not shell state: the
// `set -e` never reaches the session (a later failing command would end
// it), and every step after it records exit code 0, so a step that fails is
// a divergence, as the script would have stopped there. Options that cannot
// end the session (pipefail, -x, -E) stay as a `set` step; nounset is not
// applied (an unset variable would end the session) and is reported.
func reference(id string, src *Source, cmds []Command) (*trajectory.Trajectory, []string) {
	t := &trajectory.Trajectory{ID: id + "-ref", Task: "task.json"}
	if src.Instruction != "" {
		raw, _ := json.Marshal(map[string]string{"role": "user", "content": src.Instruction})
		t.Messages = []json.RawMessage{raw}
	}
	var warns []string
	errexit := false
	for _, c := range cmds {
		text := c.Text
		if o, ok := parseSet(c.Text); ok {
			if o.errexit != nil {
				errexit = *o.errexit
			}
			if o.nounset != nil && *o.nounset {
				warns = append(warns, fmt.Sprintf("%s:%d: %q: nounset is not applied in replay (an unset variable would end the session); such a step runs with the variable empty",
					src.SolutionFile, c.Line, c.Text))
			}
			if o.errexit != nil || o.nounset != nil {
				if len(o.keep) == 0 {
					continue
				}
				// A comment, since shell steps carry no note: the step's origin.
				text = fmt.Sprintf("set %s # rbx: from %s:%d %q; errexit and nounset are replay semantics, not shell state",
					strings.Join(o.keep, " "), src.SolutionFile, c.Line, c.Text)
			}
		}
		s := trajectory.Step{Action: trajectory.KindShell, Command: text}
		if errexit {
			zero := 0
			s.Observation = &trajectory.Observation{ExitCode: &zero}
			s.Compare = "ignore"
		}
		t.Steps = append(t.Steps, s)
	}
	return t, warns
}
