package prefix

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// Source is a sandbox that replays a prefix live so that the state after
// it can be captured: Begin (before step 0), Probe after each step,
// Capture at the end. Capturing reads the sandbox and changes nothing in
// its state (staging files live in /dev/shm, removed at once), so the
// sandbox can go on to serve the episode it was acquired for.
type Source struct {
	sb      Sandbox
	session bool
	t0      int64 // nanoseconds
	procs   map[string]bool
	shell   *shellState
	roots   []string
	exclude map[string]bool
	// uid, gid and umask are the shell's: what a file it creates gets.
	uid, gid int
	umask    uint32
}

// Begin records what the fresh sandbox sb is like before step 0: its
// clock, processes, writable filesystems and (session mode) shell state.
// It fails with a *NotReusableError when the image lacks a tool the cache
// needs.
func Begin(ctx context.Context, sb Sandbox, sessionMode bool) (*Source, error) {
	src := &Source{sb: sb, session: sessionMode, exclude: map[string]bool{}}
	out, err := helper(ctx, sb, mountsScript)
	if err != nil {
		return nil, fmt.Errorf("prefix source: mounts: %w", err)
	}
	var missing []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		kind, arg, _ := strings.Cut(l, " ")
		switch kind {
		case "R":
			src.roots = append(src.roots, arg)
		case "X":
			src.exclude[arg] = true
		case "M":
			missing = append(missing, arg)
		case "T":
			if src.t0, err = parseClock(arg); err != nil {
				return nil, fmt.Errorf("prefix source: clock %q: %w", arg, err)
			}
		case "U":
			if _, err := fmt.Sscanf(arg, "%d %d %o", &src.uid, &src.gid, &src.umask); err != nil {
				return nil, fmt.Errorf("prefix source: user %q: %w", arg, err)
			}
		}
	}
	if len(missing) > 0 {
		return nil, notReusable(-1, "the image has no %s", strings.Join(missing, ", "))
	}
	if len(src.roots) == 0 || src.t0 == 0 {
		return nil, fmt.Errorf("prefix source: no writable filesystem or no clock in %q", clipText(out, 200))
	}
	if src.procs, err = processes(ctx, sb); err != nil {
		return nil, err
	}
	if sessionMode {
		if src.shell, err = dumpShell(ctx, sb); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// ctimeSlack is how far before the clock reading a change may be stamped:
// inode times come from the kernel's coarse clock, which lags the one
// date(1) reads by up to a tick.
const ctimeSlack = 50 * time.Millisecond

// parseClock reads date's "%s.%N" as nanoseconds, less ctimeSlack; where
// date has no %N (busybox prints it as is) it keeps whole seconds, which
// the change times of such a scan are too.
func parseClock(s string) (int64, error) {
	sec, frac, _ := strings.Cut(s, ".")
	n, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return 0, err
	}
	f, err := strconv.ParseInt((frac + "000000000")[:9], 10, 64)
	if err != nil {
		return n * 1e9, nil
	}
	return n*1e9 + f - int64(ctimeSlack), nil
}

// processes returns the live processes of sb that are not the probe's own
// ancestors: pid → "comm (ppid P)".
func processes(ctx context.Context, sb Sandbox) (map[string]bool, error) {
	out, err := helper(ctx, sb, procsScript)
	if err != nil {
		return nil, fmt.Errorf("list processes: %w", err)
	}
	procs := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if l != "" {
			procs[l] = true
		}
	}
	return procs, nil
}

// Probe fails with a *NotReusableError naming step when a process that
// was not there before step 0 is alive: the cache cannot carry processes,
// so the state after step (and every later one) is replayed live.
func (src *Source) Probe(ctx context.Context, step int) error {
	now, err := processes(ctx, src.sb)
	if err != nil {
		return err
	}
	before := map[string]bool{}
	for l := range src.procs {
		pid, _, _ := strings.Cut(l, " ")
		before[pid] = true
	}
	var alive []string
	for _, l := range slices.Sorted(maps.Keys(now)) {
		f := strings.SplitN(l, " ", 4)
		if len(f) == 4 && !before[f[0]] {
			alive = append(alive, fmt.Sprintf("pid %s %q (parent %s, state %s)", f[0], f[3], f[1], f[2]))
		}
	}
	if len(alive) > 0 {
		return notReusable(step, "a background process is still running after it: %s", strings.Join(alive, "; "))
	}
	return nil
}

// Scan lists the sandbox's writable filesystems (a template's baseline,
// taken before step 0).
func (src *Source) Scan(ctx context.Context) (listing, error) {
	f := shmPath("scan")
	out, err := helper(ctx, src.sb, scanScript, append([]string{f}, src.roots...)...)
	defer src.remove(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	size, err := strconv.ParseInt(lines[len(lines)-1], 10, 64)
	if err != nil || len(lines) > 1 {
		return nil, notReusable(-1, "scanning the filesystem reported: %s", clipText(out, 300))
	}
	gz, err := readFile(ctx, src.sb, f, size)
	if err != nil {
		return nil, fmt.Errorf("scan: %w", err)
	}
	return parseListing(gz)
}

// remove deletes a staging file, even after ctx ended.
func (src *Source) remove(ctx context.Context, paths ...string) {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = session.Quote(p)
	}
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	_, _ = run(rctx, src.sb, "command rm -f -- "+strings.Join(q, " "))
}

// dumpShell reads the session shell's state.
func dumpShell(ctx context.Context, sb Sandbox) (*shellState, error) {
	out, err := run(ctx, sb, dumpScript)
	if err != nil {
		return nil, fmt.Errorf("dump shell state: %w", err)
	}
	return parseDump(out)
}
