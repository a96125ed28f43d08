package replayer_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/containerd/containerdtest"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/sandbox/kubernetes/k8stest"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// keys is a keys step and what the terminal showed the agent after it.
func keys(k string, wait time.Duration, saw string) trajectory.Step {
	s := trajectory.Step{Action: trajectory.KindKeys, Keys: k, Duration: task.Duration(wait)}
	if saw != "" {
		s.Observation = &trajectory.Observation{Output: saw}
	}
	return s
}

// TestIntegrationTerminalKeys replays, on Docker, keystroke trajectories
// written as Terminus records its runs (what the terminal showed after
// each step, prompts with the recording's host): an edit in vi (insert
// mode, text, Escape, :wq) and a file paged with less (busybox); a
// function defined and called in python3's REPL left with C-d, a sleep
// interrupted by C-c, a read -p prompt answered, a foreground HTTP server
// polled and stopped with C-c (Debian). Each replays to every checkpoint
// k in a fresh sandbox, then on to its end, and its last step (a shell
// check of the files or of what was served) passes: the terminal's state
// at k is the one the agent had. Replay waits on the output, not on the
// recorded durations (their sum is printed beside the wall time).
func TestIntegrationTerminalKeys(t *testing.T) {
	rt := dockerRuntime(t, "rbx/busybox:latest", "rbx/debian:bookworm")
	busybox := []trajectory.Step{
		keys("vi notes.txt\n", 2*time.Second, "~\n~"),
		keys("i", time.Second, ""),
		keys("hello from vi\nsecond line", time.Second, "hello from vi\nsecond line"),
		keys("Escape", time.Second, ""),
		keys(":wq\n", 2*time.Second, "/workspace #"),
		keys("less /etc/passwd\n", 2*time.Second, "root:x:0:0:root:/root:/bin/sh"),
		keys("q", time.Second, "/workspace #"),
		keys("echo done-$((20+22))\n", time.Second, "/workspace # echo done-$((20+22))\ndone-42\n/workspace #"),
		shell("cat notes.txt", obs("hello from vi\nsecond line\n", 0)),
	}
	debian := []trajectory.Step{
		keys("python3\n", 3*time.Second, "root@5e1f0a2c9b7d:/workspace# python3\nType \"help\", \"copyright\", \"credits\" or \"license\" for more information.\n>>>"),
		keys("def f(x):\n    return 2 * x\n\n", time.Second, ">>> def f(x):\n...     return 2 * x\n...\n>>>"),
		keys("f(21)\n", time.Second, ">>> f(21)\n42\n>>>"),
		keys("C-d", time.Second, "root@5e1f0a2c9b7d:/workspace#"),
		keys("sleep 1000\n", 5*time.Second, "root@5e1f0a2c9b7d:/workspace# sleep 1000"),
		keys("C-c", time.Second, "^C\nroot@5e1f0a2c9b7d:/workspace#"),
		keys("read -p 'Name? ' name\n", time.Second, "Name?"),
		keys("Ada\n", time.Second, "root@5e1f0a2c9b7d:/workspace#"),
		keys("echo \"hi $name\" > greeting\n", time.Second, "root@5e1f0a2c9b7d:/workspace#"),
		keys("python3 -m http.server 8000\n", 5*time.Second, "Serving HTTP on 0.0.0.0 port 8000 (http://0.0.0.0:8000/) ..."),
		shell(`python3 -c "import urllib.request; print(urllib.request.urlopen('http://127.0.0.1:8000/greeting').read().decode(), end='')"`, obs("hi Ada\n", 0)),
		keys("", 2*time.Second, `127.0.0.1 - - [05/Dec/2026 21:14:09] "GET /greeting HTTP/1.1" 200 -`),
		keys("C-c", time.Second, "Keyboard interrupt received, exiting.\nroot@5e1f0a2c9b7d:/workspace#"),
		shell(`python3 -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/')" 2>/dev/null || echo stopped`, obs("stopped\n", 0)),
	}
	r, err := replayer.New()
	require.NoError(t, err)
	for _, tc := range []struct {
		image string
		steps []trajectory.Step
	}{{"rbx/busybox:latest", busybox}, {"rbx/debian:bookworm", debian}} {
		t.Run(tc.image, func(t *testing.T) {
			tr := &trajectory.Trajectory{ID: "term", Task: "t", Steps: tc.steps}
			require.NoError(t, tr.Validate())
			var recorded time.Duration
			for _, s := range tc.steps {
				recorded += s.Duration.D()
			}
			g, ctx := errgroup.WithContext(context.Background())
			g.SetLimit(3)
			start := time.Now()
			for k := 0; k <= tr.Len(); k++ {
				g.Go(func() error {
					sb := create(t, rt, sandbox.Spec{Image: tc.image, Mode: sandbox.ModeSession})
					run := r.Start(sb, &task.Task{ID: "t"}, tr)
					if rep, err := run.To(ctx, k); err != nil {
						return fmt.Errorf("to k = %d: %w (%+v)", k, err, rep.Steps)
					}
					if rep, err := run.To(ctx, tr.Len()); err != nil {
						return fmt.Errorf("from k = %d to the end: %w (%+v)", k, err, rep.Steps)
					}
					return nil
				})
			}
			require.NoError(t, g.Wait())
			t.Logf("%d replays of %d steps: %v wall; recorded waits %v each", tr.Len()+1, tr.Len(), time.Since(start).Round(time.Millisecond), recorded)
		})
	}
}

// TestIntegrationTerminalDivergence: a keys step whose recorded output the
// terminal never shows is a divergence at that step once twice its
// duration and the margin have passed, with a diff.
func TestIntegrationTerminalDivergence(t *testing.T) {
	rt := dockerRuntime(t, "rbx/busybox:latest")
	r, err := replayer.New()
	require.NoError(t, err)
	tr := &trajectory.Trajectory{ID: "term", Task: "t", Steps: []trajectory.Step{
		keys("echo one\n", 0, "one"),
		keys("echo two\n", 0, "three"),
	}}
	sb := create(t, rt, sandbox.Spec{Image: "rbx/busybox:latest", Mode: sandbox.ModeSession})
	start := time.Now()
	_, err = r.Replay(context.Background(), sb, &task.Task{ID: "t"}, tr, tr.Len())
	var se *replayer.StepError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Index)
	assert.NotEmpty(t, se.Diff)
	assert.Contains(t, err.Error(), "three")
	assert.Less(t, time.Since(start), 15*time.Second)
}

// TestIntegrationTerminus2Import: a Terminus-2 run in Harbor's ATIF,
// imported, replays on Docker to its end: a turn of two commands whose
// one observation is its last's, a long output cut by Terminus, C-c, the
// task marked complete; the file it wrote is there.
func TestIntegrationTerminus2Import(t *testing.T) {
	rt := dockerRuntime(t, "rbx/debian:bookworm")
	doc := `{"schema_version": "ATIF-v1.5", "session_id": "t2-1", "agent": {"name": "terminus-2", "version": "2.0.0"},
 "steps": [
  {"step_id": 1, "source": "user", "message": "Create hello.txt."},
  {"step_id": 2, "source": "agent", "message": "{}", "tool_calls": [
     {"tool_call_id": "call_0_1", "function_name": "bash_command", "arguments": {"keystrokes": "echo hello > hello.txt\n", "duration": 0.1}},
     {"tool_call_id": "call_0_2", "function_name": "bash_command", "arguments": {"keystrokes": "cat hello.txt\n", "duration": 0.1}}],
   "observation": {"results": [{"content": "New Terminal Output:\n\nroot@4f3a9c2b1e0d:/app# echo hello > hello.txt\nroot@4f3a9c2b1e0d:/app# cat hello.txt\nhello\nroot@4f3a9c2b1e0d:/app# "}]}},
  {"step_id": 3, "source": "agent", "message": "{}", "tool_calls": [
     {"tool_call_id": "call_1_1", "function_name": "bash_command", "arguments": {"keystrokes": "seq 1 100000\n", "duration": 1.0}}],
   "observation": {"results": [{"content": "New Terminal Output:\n\n1\n2\n[... output limited to 10000 bytes; 578880 interior bytes omitted ...]\n99999\n100000\nroot@4f3a9c2b1e0d:/app# "}]}},
  {"step_id": 4, "source": "agent", "message": "{}", "tool_calls": [
     {"tool_call_id": "call_2_1", "function_name": "bash_command", "arguments": {"keystrokes": "sleep 100\n", "duration": 1.0}},
     {"tool_call_id": "call_2_2", "function_name": "bash_command", "arguments": {"keystrokes": "C-c", "duration": 0.5}},
     {"tool_call_id": "call_2_task_complete", "function_name": "mark_task_complete", "arguments": {}}],
   "observation": {"results": [{"content": "Current terminal state:\nNew Terminal Output:\n\nroot@4f3a9c2b1e0d:/app# sleep 100\n^C\nroot@4f3a9c2b1e0d:/app# \n\nAre you sure you want to mark the task as complete?"}]}}
 ]}`
	res, err := importer.Import(importer.FormatAuto, "t2.json", []byte(doc))
	require.NoError(t, err)
	tr := res.Trajectories[0]
	tr.Steps = append(tr.Steps, shell("cat /app/hello.txt", obs("hello\n", 0)))
	r, err := replayer.New()
	require.NoError(t, err)
	sb := create(t, rt, sandbox.Spec{Image: "rbx/debian:bookworm", Mode: sandbox.ModeSession, Workdir: "/app"})
	rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t", Workdir: "/app"}, tr, tr.Len())
	require.NoError(t, err, "%+v", rep)
}

// TestIntegrationTerminalBackends: keystrokes replay on Docker under
// gVisor (runsc), containerd, Kubernetes and the local backend as on
// Docker with runc (each skips when its backend does not answer): a sleep interrupted by C-c, a file written
// from the terminal, checked by a shell step.
func TestIntegrationTerminalBackends(t *testing.T) {
	steps := []trajectory.Step{
		keys("sleep 100\n", time.Second, "sleep 100"),
		keys("C-c", time.Second, "^C"),
		keys("printf 'a\\nb\\n' > t.txt; echo written\n", time.Second, "written"),
		shell("cat t.txt", obs("a\nb\n", 0)),
	}
	tr := &trajectory.Trajectory{ID: "term", Task: "t", Steps: steps}
	r, err := replayer.New()
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		rt   func(t *testing.T) sandbox.Runtime
	}{
		{"docker-runsc", func(t *testing.T) sandbox.Runtime { return dockertest.RunscRuntime(t, "rbx/busybox:latest") }},
		{"containerd", func(t *testing.T) sandbox.Runtime { return containerdtest.Runtime(t, "rbx/busybox:latest") }},
		{"kubernetes", func(t *testing.T) sandbox.Runtime { return k8stest.Runtime(t) }},
		{"local", func(t *testing.T) sandbox.Runtime {
			rt, err := local.New(local.WithBaseDir(t.TempDir()))
			require.NoError(t, err)
			return rt
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := tc.rt(t)
			sb := create(t, rt, sandbox.Spec{Image: "rbx/busybox:latest", Mode: sandbox.ModeSession})
			rep, err := r.Replay(context.Background(), sb, &task.Task{ID: "t"}, tr, tr.Len())
			require.NoError(t, err, "%+v", rep)
		})
	}
}

// TestIntegrationTerminalOutputCap: a keys step's output is held to the
// task's output cap, its end kept (the terminal's latest lines), and
// marked truncated (local backend).
func TestIntegrationTerminalOutputCap(t *testing.T) {
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	sb := create(t, rt, sandbox.Spec{Mode: sandbox.ModeSession})
	r, err := replayer.New()
	require.NoError(t, err)
	tk := &task.Task{ID: "t", Limits: task.Limits{Output: 64}}
	tr := &trajectory.Trajectory{ID: "term", Task: "t", Steps: []trajectory.Step{keys("seq 1 5000\n", time.Second, "4999\n5000")}}
	rep, err := r.Replay(context.Background(), sb, tk, tr, 1)
	require.NoError(t, err)
	res := rep.Steps[0]
	assert.True(t, res.Truncated)
	assert.LessOrEqual(t, len(res.Output), 64)
	assert.True(t, strings.HasSuffix(res.Output, "#"), "the end kept: the prompt after seq, %q", res.Output)
}

// TestIntegrationTerminalSize: the terminal has the task's declared size
// (stty reads it), else Terminus' 40 by 160 (local backend).
func TestIntegrationTerminalSize(t *testing.T) {
	rt, err := local.New(local.WithBaseDir(t.TempDir()))
	require.NoError(t, err)
	r, err := replayer.New()
	require.NoError(t, err)
	for _, tc := range []struct {
		size *task.TerminalSize
		want string
	}{{nil, "40 160"}, {&task.TerminalSize{Rows: 12, Cols: 70}, "12 70"}} {
		sb := create(t, rt, sandbox.Spec{Mode: sandbox.ModeSession})
		tr := &trajectory.Trajectory{ID: "term", Task: "t", Steps: []trajectory.Step{keys("stty size\n", time.Second, tc.want)}}
		_, err := r.Replay(context.Background(), sb, &task.Task{ID: "t", Terminal: tc.size}, tr, 1)
		require.NoError(t, err, tc.want)
	}
}
