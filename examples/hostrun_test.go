package examples_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/session"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// hostSandbox stands in for the local backend while it does not exist: a
// private directory plays the workdir and one session shell runs the steps,
// so cwd and exports carry over as they do in a sandbox.
type hostSandbox struct {
	tk       *task.Task
	dir      string
	env      []string
	shell    *session.Shell
	services map[string]string
	vars     map[string]string
}

// shellFlavor picks the shell and PATH: the host's bash, or busybox sh with
// only busybox applets on PATH (what rbx/busybox:latest has).
type shellFlavor struct {
	name string
	argv []string
	path string
}

func hostFlavor() shellFlavor {
	return shellFlavor{name: "host", argv: session.StartCommand, path: "/usr/local/bin:/usr/bin:/bin"}
}

// busyboxFlavor links every busybox applet into a directory used as PATH;
// without busybox it skips (fails when RBX_REQUIRE_DOCKER=1: the variant
// stands in for rbx/busybox:latest, whose build installs it).
func busyboxFlavor(t *testing.T) shellFlavor {
	t.Helper()
	bb, err := exec.LookPath("busybox")
	if err != nil {
		testenv.Missing(t, "busybox is not installed on this host (make images installs busybox-static): skipping the busybox-shell variant")
	}
	out, err := exec.Command(bb, "--list").Output()
	require.NoError(t, err)
	dir := t.TempDir()
	for _, applet := range strings.Fields(string(out)) {
		require.NoError(t, os.Symlink(bb, filepath.Join(dir, applet)))
	}
	return shellFlavor{name: "busybox", argv: []string{bb, "sh"}, path: dir}
}

// newHostSandbox copies the task's files into a fresh directory and starts
// the session shell there.
func newHostSandbox(t *testing.T, tk *task.Task, fl shellFlavor, services map[string]string) *hostSandbox {
	t.Helper()
	sb := &hostSandbox{tk: tk, dir: t.TempDir(), services: map[string]string{}, vars: map[string]string{}}
	for k, v := range tk.Services {
		sb.services[k] = v
	}
	for k, v := range services {
		sb.services[k] = v
	}
	sb.env = []string{"PATH=" + fl.path, "HOME=" + t.TempDir()}
	for k, v := range tk.Env {
		sb.env = append(sb.env, k+"="+v)
	}
	sb.copyFiles(t, tk.Files)

	cmd := exec.Command(fl.argv[0], fl.argv[1:]...)
	cmd.Dir, cmd.Env = sb.dir, sb.env
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
		_ = pw.Close()
	})
	kill := func(ctx context.Context, marker string) error {
		return exec.CommandContext(ctx, "sh", "-c", session.KillScript(marker)).Run()
	}
	sb.shell, err = session.New(context.Background(), stdin, pr, kill)
	require.NoError(t, err)
	return sb
}

// hostPath maps a sandbox path (absolute under the workdir, or relative to it)
// into the directory.
func (sb *hostSandbox) hostPath(t *testing.T, p string) string {
	t.Helper()
	workdir := sb.tk.Workdir
	if workdir == "" {
		workdir = sandbox.DefaultWorkdir
	}
	if filepath.IsAbs(p) {
		rel, err := filepath.Rel(workdir, p)
		require.NoError(t, err)
		require.False(t, strings.HasPrefix(rel, ".."), "path %s is outside the workdir %s", p, workdir)
		p = rel
	}
	return filepath.Join(sb.dir, p)
}

func (sb *hostSandbox) copyFiles(t *testing.T, files map[string]string) {
	t.Helper()
	list, err := sb.tk.Expand(files)
	require.NoError(t, err)
	for _, f := range list {
		data, err := os.ReadFile(f.Src)
		require.NoError(t, err)
		dest := sb.hostPath(t, f.Dest)
		require.NoError(t, os.MkdirAll(filepath.Dir(dest), 0o755))
		require.NoError(t, os.WriteFile(dest, data, f.Mode))
	}
}

// verify copies the verifier in and runs it in a fresh shell (exec mode), as
// the verifier never sees the agent's session state.
func (sb *hostSandbox) verify(t *testing.T) (string, int) {
	t.Helper()
	sb.copyFiles(t, sb.tk.Verify.Files)
	cmd := exec.Command("sh", "-c", sb.tk.Verify.Command)
	cmd.Dir, cmd.Env = sb.dir, sb.env
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

// replay runs steps [0, k) and checks each against its recording: the exit
// code (or status) always, the output unless the step is volatile or says
// "compare": "ignore".
func (sb *hostSandbox) replay(t *testing.T, tr *trajectory.Trajectory, k int) {
	t.Helper()
	for i, s := range tr.Steps[:k] {
		got := sb.run(t, s)
		obs := s.Observation
		if obs == nil {
			continue
		}
		want := obs.Status
		if s.Action != trajectory.KindHTTP && obs.ExitCode != nil {
			want = *obs.ExitCode
		}
		require.Equal(t, want, got.code, "step %d (%s): exit code; output:\n%s", i, s.Action, got.output)
		if got.hasOutput && !s.Volatile && s.Compare != "ignore" {
			require.Equal(t, obs.Output, got.output, "step %d (%s): output", i, s.Action)
		}
	}
}
