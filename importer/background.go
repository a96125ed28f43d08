package importer

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// A command an agent left running (Claude Code's Bash with
// run_in_background, an OpenHands command still running when the agent
// moved on) replays as the same command started in the background of the
// sandbox, in a session and process group of its own, its output and
// exit status kept under bgDir; the agent's later looks at it (a poll
// that saw it finish, Claude Code's BashOutput) wait for it and expect
// its recorded exit code, and its interruption (C-c, KillShell) kills its
// group. Each is a plain shell step: what the agent's tool did, spelled
// in sh.
const bgDir = "/tmp/.rbx-bg"

// bgKey makes an agent's shell id safe in a file name.
var bgKeyUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

func bgKey(id string) string { return bgKeyUnsafe.ReplaceAllString(id, "_") }

// leadingCd is a command that changes directory before the rest:
// "cd /app && npm start". The agent's shell ran the cd itself, so the
// directory stays changed for its next commands.
var leadingCd = regexp.MustCompile(`^(cd\s+(?:'[^']*'|"[^"]*"|[^\s;&|'"]+))\s*(?:&&|;)\s*([^\n]+)$`)

// bgStartStep starts command in the background under key; a leading cd
// runs in the shell that starts it, as in the agent's. When the agent saw
// it print waitFor before moving on, the step waits (at most bound) for
// that line, so that what follows meets the program as the agent did
// (a server listening); programs are asked to flush by line, as on the
// agent's terminal (PYTHONUNBUFFERED, stdbuf where present). The agents'
// shells are bash, and so is the one that starts it.
func bgStartStep(key, command, waitFor string, bound time.Duration) trajectory.Step {
	f := bgDir + "/" + bgKey(key)
	cd := ""
	if m := leadingCd.FindStringSubmatch(strings.TrimSpace(command)); m != nil {
		cd, command = m[1]+" && ", m[2]
	}
	// Under bash's job control (set -m) the job gets a process group of
	// its own, and keeps SIGINT and SIGQUIT, which a plain & ignores: a
	// C-c must reach it as it reached the agent's foreground command.
	launch := fmt.Sprintf(`set -m; if command -v stdbuf >/dev/null 2>&1; then B='stdbuf -oL -eL'; else B=; fi; `+
		`PYTHONUNBUFFERED=1 sh -c %s rbx-bg "$1" </dev/null >%s.out 2>&1 & echo $! >%s.pid`,
		shellQuote(`$B bash -c "$1"; echo $? >`+f+".rc"), f, f)
	script := fmt.Sprintf(cd+"mkdir -p %s && rm -f %s.rc %s.pid && bash -c %s rbx-bg %s", bgDir, f, f, shellQuote(launch), shellQuote(command))
	if waitFor != "" && bound > 0 {
		// In a subshell: the step runs in the agent's (session) shell.
		script += fmt.Sprintf("; ( i=0; while ! grep -qF -- %s %s.out 2>/dev/null && %s && [ $i -lt %d ]; do sleep 0.1; i=$((i+1)); done )",
			shellQuote(waitFor), f, bgAlive(f), int(bound/(100*time.Millisecond)))
	}
	return trajectory.Step{Action: trajectory.KindShell, Command: script, Compare: "ignore"}
}

// bgAlive is sh that succeeds while the process in pid file f runs (a
// zombie nobody reaps counts as ended).
func bgAlive(f string) string {
	return fmt.Sprintf(`{ p=$(cat %s.pid 2>/dev/null) && s=$(cut -d' ' -f3 /proc/$p/stat 2>/dev/null) && [ -n "$s" ] && [ "$s" != Z ]; }`, f)
}

// bgWaitStep waits for the command under key to end and exits with its
// status (137 when it ended without writing one: killed).
func bgWaitStep(key string, code *int) trajectory.Step {
	f := bgDir + "/" + bgKey(key)
	script := fmt.Sprintf("( while [ ! -e %s.rc ] && %s; do sleep 0.1; done; "+
		"if [ -e %s.rc ]; then exit $(cat %s.rc); else exit 137; fi )", f, bgAlive(f), f, f)
	s := trajectory.Step{Action: trajectory.KindShell, Command: script, Compare: "ignore"}
	if code != nil {
		s.Observation = &trajectory.Observation{ExitCode: code}
	}
	return s
}

// bgKillStep interrupts the command under key with signal (INT for C-c,
// TERM for KillShell): its process group, else itself; then waits for it
// to end (at most 10 s, KILL after).
func bgKillStep(key, signal string) trajectory.Step {
	f := bgDir + "/" + bgKey(key)
	script := fmt.Sprintf("( p=$(cat %s.pid 2>/dev/null) || exit 0; kill -%s -- -$p 2>/dev/null || kill -%s $p 2>/dev/null; "+
		"i=0; while %s && [ $i -lt 100 ]; do sleep 0.1; i=$((i+1)); done; "+
		"kill -KILL -- -$p 2>/dev/null || kill -KILL $p 2>/dev/null; exit 0 )", f, signal, signal, bgAlive(f))
	return trajectory.Step{Action: trajectory.KindShell, Command: script, Compare: "ignore"}
}

// Claude Code's background shells: the id its Bash gives a command run in
// the background, and what BashOutput says of it.
var (
	ccBgID     = regexp.MustCompile(`(?i)running in background with ID: *([^\s.,]+)`)
	ccBgStatus = regexp.MustCompile(`<status>(\w+)</status>`)
	ccBgExit   = regexp.MustCompile(`<exit_code>(-?\d+)</exit_code>`)
)

// Importer-internal actions resolved by resolveBackground once results
// are attached: Claude Code's background Bash, BashOutput and KillShell.
const (
	kindBgStart  trajectory.Kind = "bash_background"
	kindBgOutput trajectory.Kind = "bash_output"
	kindBgKill   trajectory.Kind = "kill_shell"
)

// resolveBackground turns Claude Code's background shell calls into
// steps: a start keyed by the id its result names (else bash_N, the Nth
// started), a BashOutput that saw the command end into a wait expecting
// its exit code (one that saw it running into a noop), a KillShell into a
// kill. A BashOutput or KillShell of a shell no start made is an error
// naming the step unless its result says the tool refused it.
func resolveBackground(steps []trajectory.Step) error {
	started := map[string]bool{}
	n := 0
	for i := range steps {
		s := &steps[i]
		result := recorded(*s)
		switch s.Action {
		case kindBgStart:
			n++
			key := "bash_" + strconv.Itoa(n)
			if m := ccBgID.FindStringSubmatch(result); m != nil {
				key = m[1]
			}
			started[key] = true
			replace(s, bgStartStep(key, s.Command, "", 0))
		case kindBgOutput, kindBgKill:
			key := s.Note
			if !started[key] {
				if result == "" || !errorStart.MatchString(strings.TrimSpace(result)) {
					return fmt.Errorf("step %d (%s %s): no background command with that id was started before", i, s.Action, key)
				}
				*s = declinedStep(*s, fmt.Sprintf("%s %s", s.Action, key), result)
				break
			}
			if s.Action == kindBgKill {
				replace(s, bgKillStep(key, "TERM"))
				break
			}
			st := ccBgStatus.FindStringSubmatch(result)
			if st == nil || st[1] == "running" {
				replace(s, noop(fmt.Sprintf("BashOutput %s: still running", key)))
				break
			}
			var code *int
			if m := ccBgExit.FindStringSubmatch(result); m != nil {
				if c, err := strconv.Atoi(m[1]); err == nil {
					code = &c
				}
			}
			replace(s, bgWaitStep(key, code))
		}
	}
	return nil
}
