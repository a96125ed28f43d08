package tbench

import (
	"fmt"
	"strings"
)

// mergeRuns joins each run of consecutive shell-form RUN instructions of
// a Dockerfile into one RUN of subshells, `( a ) && ( b )`, in lines (the
// physical lines, some already rewritten by rewriteDockerfile: ins are
// their instructions as first read), and returns how many instructions it
// folded away. Why: the engine's classic builder commits a layer per
// instruction, and on a fuse-overlayfs engine (rootless Docker, CI's
// machine) each commit diffs the whole image tree against its parent's —
// over a toolchain base of gigabytes, minutes a commit under load, and
// task Dockerfiles often hold several small RUNs in a row (rm this, chmod
// that). A subshell each keeps what one RUN could not leak into the next
// (cd, variables, set -e, exit); the first failing one fails the RUN as it
// failed the build before.
//
// Left alone: exec-form RUNs, RUNs with flags (--mount: BuildKit's), with
// a '#' (a shell comment would swallow what follows it once joined) or a
// heredoc, and every RUN of a Dockerfile with a SHELL instruction.
func mergeRuns(lines []string, ins []instruction) int {
	for _, in := range ins {
		if strings.EqualFold(strings.Fields(in.text)[0], "SHELL") {
			return 0
		}
	}
	folded := 0
	var group []runNow
	flush := func() {
		if len(group) > 1 {
			mergeGroup(lines, group)
			folded += len(group) - 1
		}
		group = nil
	}
	for _, in := range ins {
		if r, ok := currentRun(lines, in); ok {
			group = append(group, r)
			continue
		}
		flush()
	}
	flush()
	return folded
}

// runNow is a RUN instruction as lines hold it now: the comments rbx
// import put above it, and its shell command.
type runNow struct {
	in       instruction
	comments []string
	body     string
}

// currentRun reads in's RUN from lines as rewritten, if mergeRuns may
// fold it.
func currentRun(lines []string, in instruction) (runNow, bool) {
	if !strings.EqualFold(strings.Fields(in.text)[0], "RUN") {
		return runNow{}, false
	}
	sub := strings.Split(strings.Join(lines[in.start:min(in.end+1, len(lines))], "\n"), "\n")
	r := runNow{in: in}
	for len(sub) > 0 && strings.HasPrefix(strings.TrimSpace(sub[0]), "#") {
		r.comments, sub = append(r.comments, sub[0]), sub[1:]
	}
	now := instructions(sub)
	if len(now) != 1 {
		return runNow{}, false
	}
	t := strings.TrimSpace(now[0].text)
	if len(t) < 4 || !strings.EqualFold(t[:3], "RUN") || !strings.ContainsAny(t[3:4], " \t\n") {
		return runNow{}, false
	}
	r.body = strings.TrimSpace(t[3:])
	if r.body == "" || strings.HasPrefix(r.body, "[") || strings.HasPrefix(r.body, "--") ||
		strings.Contains(r.body, "#") || strings.Contains(r.body, "<<") {
		return runNow{}, false
	}
	return r, true
}

// mergeGroup writes group's merged RUN where its last RUN was, after every
// comment the group carried, and blanks the group's other lines.
func mergeGroup(lines []string, group []runNow) {
	var comments, parts, nums []string
	for _, r := range group {
		comments = append(comments, r.comments...)
		parts = append(parts, "( "+strings.ReplaceAll(r.body, "\n", " \\\n")+" )")
		nums = append(nums, fmt.Sprint(r.in.line))
		for i := r.in.start; i <= r.in.end && i < len(lines); i++ {
			lines[i] = ""
		}
	}
	comments = append(comments, fmt.Sprintf("# rbx import: lines %s: %d RUN instructions in one (one layer commit, not %d)",
		strings.Join(nums, ", "), len(group), len(group)))
	last := group[len(group)-1].in
	lines[last.start] = strings.Join(comments, "\n") + "\nRUN " + strings.Join(parts, " && \\\n    ")
}
