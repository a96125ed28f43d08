package docker_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// TestIntegrationRecycleNoExec: a recyclable sandbox's creation costs one
// exec (its first session shell, the reference of what the engine gives
// one: the fresh listing and whois run in PID 1), and an episode in it —
// session steps, an exec-mode step (a verifier) and the shell probe it
// needs, the recycle and the next session shell — creates none: PID 1 runs
// them all through its mux. The exec-mode step still gets the sandbox's user, workdir and
// environment, its own variables, its exit code and its output; the
// session after the recycle is fresh.
func TestIntegrationRecycleNoExec(t *testing.T) {
	rt := newRecycleRuntime(t, busybox)
	spec := recyclable(busybox, sandbox.ModeSession)
	spec.User = "65534"
	spec.Env = map[string]string{"FROM_SPEC": "spec"}
	since := time.Now().Add(-time.Second) // the engine's clock is the host's; its events carry seconds
	sb := newSandbox(t, rt, spec)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var execs atomic.Int32
	ectx, stop := context.WithCancel(ctx)
	defer stop()
	msgs, errs := rt.Client().Events(ectx, events.ListOptions{Since: strconv.FormatInt(since.Unix(), 10),
		Filters: filters.NewArgs(filters.Arg("container", sb.ID()), filters.Arg("type", "container"))})
	watching := make(chan struct{})
	go func() {
		close(watching)
		for {
			select {
			case m := <-msgs:
				if len(m.Action) >= 11 && m.Action[:11] == "exec_create" {
					execs.Add(1)
				}
			case <-errs:
				return
			}
		}
	}()
	<-watching
	time.Sleep(200 * time.Millisecond) // the subscription is live
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "pwd", Mode: sandbox.ModeExec})
	require.NoError(t, err)
	wd := strings.TrimSpace(string(res.Output))

	for round := range 3 {
		res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "export LEFT=over; cd /tmp; echo x > f; sleep 1000 >/dev/null 2>&1 &"})
		require.NoError(t, err)
		require.Equal(t, 0, res.ExitCode, "round %d", round)
		res, err = sb.Exec(ctx, sandbox.ExecRequest{Mode: sandbox.ModeExec, Env: map[string]string{"FROM_REQ": "req"},
			Command: `echo "$(id -u) $(pwd) $FROM_SPEC $FROM_REQ ${LEFT:-none}"; echo err >&2; exit 7`})
		require.NoError(t, err)
		assert.Equal(t, 7, res.ExitCode, "round %d", round)
		assert.Equal(t, "65534 "+wd+" spec req none\nerr\n", string(res.Output), "round %d", round)
		_, err = sb.(sandbox.Recycler).Recycle(ctx)
		require.NoError(t, err, "round %d", round)
		res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: `echo "${LEFT:-none} $(pwd)"; ls /tmp | wc -l`})
		require.NoError(t, err)
		assert.Equal(t, "none "+wd+"\n0\n", string(res.Output), "round %d: the session after the recycle is fresh", round)
	}
	time.Sleep(500 * time.Millisecond) // events in flight
	assert.EqualValues(t, 1, execs.Load(), "execs created: the first session shell's, none by three episodes")
}
