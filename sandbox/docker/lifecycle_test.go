package docker_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

func TestIntegrationSecurityDefaults(t *testing.T) {
	rt := newRuntime(t)
	sb := newSandbox(t, rt, sandbox.Spec{Limits: sandbox.Limits{Pids: 64, MemoryBytes: 256 << 20, CPUs: 0.5}})
	info, err := rt.Client().ContainerInspect(context.Background(), sb.ID())
	require.NoError(t, err)
	hc := info.HostConfig
	assert.Equal(t, []string{"ALL"}, []string(hc.CapDrop))
	var caps []string
	for _, c := range hc.CapAdd {
		caps = append(caps, strings.TrimPrefix(c, "CAP_")) // the engine may normalise names
	}
	assert.ElementsMatch(t, []string{"CHOWN", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID"}, caps, "no DAC_OVERRIDE")
	ulimits := map[string][2]int64{}
	for _, u := range hc.Ulimits {
		ulimits[u.Name] = [2]int64{u.Soft, u.Hard}
	}
	assert.Equal(t, map[string][2]int64{
		"fsize":  {sandbox.DefaultFileSize, sandbox.DefaultFileSize},
		"nofile": {sandbox.DefaultNoFile, sandbox.DefaultNoFile},
	}, ulimits)
	assert.False(t, hc.ReadonlyRootfs)
	assert.Empty(t, info.Config.User, "the image's user unless the task names one")
	assert.Contains(t, hc.SecurityOpt, "no-new-privileges:true")
	assert.Equal(t, "none", string(hc.NetworkMode))
	require.NotNil(t, hc.PidsLimit)
	assert.EqualValues(t, 64, *hc.PidsLimit)
	assert.EqualValues(t, 256<<20, hc.Memory)
	assert.EqualValues(t, 500_000_000, hc.NanoCPUs)
	require.NotNil(t, hc.Init)
	assert.True(t, *hc.Init)
	assert.Equal(t, "true", info.Config.Labels[sandbox.LabelManaged])
	assert.Equal(t, sandbox.Owner, info.Config.Labels[sandbox.LabelOwner])

	res, err := sb.Exec(context.Background(), sandbox.ExecRequest{Command: "ls /sys/class/net; wget -q -T 2 -O- http://1.1.1.1/ && echo reached"})
	require.NoError(t, err)
	assert.NotZero(t, res.ExitCode)
	assert.Equal(t, "lo\n", string(res.Output[:3]), string(res.Output))
	assert.NotContains(t, string(res.Output), "reached")
}

func TestIntegrationMissingImage(t *testing.T) {
	rt := newRuntime(t)
	_, err := rt.Create(context.Background(), sandbox.Spec{Image: "rbx/does-not-exist:never"})
	require.ErrorIs(t, err, sandbox.ErrImageMissing)
	assert.Contains(t, err.Error(), "rbx/does-not-exist:never")
}

func TestIntegrationListOpenRemove(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	sb := newSandbox(t, rt, sandbox.Spec{Mode: sandbox.ModeExec, Workdir: "/srv", Labels: map[string]string{sandbox.LabelTask: "list-me"}})
	infos, err := rt.List(ctx, map[string]string{sandbox.LabelTask: "list-me", "rbx.test": t.Name()})
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, sb.ID(), infos[0].ID)
	assert.Equal(t, "running", infos[0].State)
	assert.Equal(t, testImage, infos[0].Image)
	infos, err = rt.List(ctx, map[string]string{sandbox.LabelTask: "other", "rbx.test": t.Name()})
	require.NoError(t, err)
	assert.Empty(t, infos)

	opened, err := rt.Open(ctx, sb.ID()[:12])
	require.NoError(t, err)
	assert.Equal(t, sb.ID(), opened.ID())
	res, err := opened.Exec(ctx, sandbox.ExecRequest{Command: "export A=1; pwd"})
	require.NoError(t, err)
	assert.Equal(t, "/srv\n", string(res.Output))
	res, err = opened.Exec(ctx, sandbox.ExecRequest{Command: "echo \"a=$A\""})
	require.NoError(t, err)
	assert.Equal(t, "a=\n", string(res.Output), "exec mode recovered from labels")

	require.NoError(t, rt.Remove(ctx, sb.ID()))
	require.ErrorIs(t, rt.Remove(ctx, sb.ID()), sandbox.ErrNotFound)
	_, err = rt.Open(ctx, sb.ID())
	require.ErrorIs(t, err, sandbox.ErrNotFound)
}

func TestIntegrationContainerKilled(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode})
			require.NoError(t, rt.Client().ContainerKill(ctx, sb.ID(), "KILL"))
			_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "true"})
			require.ErrorIs(t, err, sandbox.ErrSandboxGone)
			assert.Contains(t, err.Error(), sb.ID())
			_, err = sb.ReadFile(ctx, "missing")
			require.ErrorIs(t, err, sandbox.ErrSandboxGone)
		})
	}
}

func TestIntegrationCreateCancelledLeavesNothing(t *testing.T) {
	rt := newRuntime(t)
	label := map[string]string{"rbx.test": t.Name()}
	for _, d := range []time.Duration{0, time.Millisecond, 5 * time.Millisecond, 20 * time.Millisecond, 60 * time.Millisecond, 150 * time.Millisecond} {
		ctx, cancel := context.WithTimeout(context.Background(), d)
		sb, err := rt.Create(ctx, sandbox.Spec{Image: testImage, Labels: label})
		cancel()
		t.Logf("cancel after %v: %v", d, err)
		if err == nil { // fast enough to finish: fine, but clean it up
			require.NoError(t, sb.Remove(context.Background()))
		}
	}
	infos, err := rt.List(context.Background(), label)
	require.NoError(t, err)
	for _, i := range infos {
		assert.NoError(t, rt.Remove(context.Background(), i.ID))
	}
	assert.Empty(t, infos, "a cancelled Create left containers behind")
}

func TestIntegrationOwner(t *testing.T) {
	rt := newRuntime(t)
	own, err := docker.New(docker.WithClient(rt.Client()), docker.WithOwner("test-owner"))
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = own.Close()
		_ = rt.ForgetHeartbeat(context.Background(), "test-owner")
	})
	sb := newSandbox(t, own, sandbox.Spec{Mode: sandbox.ModeExec})
	info, err := rt.Client().ContainerInspect(context.Background(), sb.ID())
	require.NoError(t, err)
	assert.Equal(t, "test-owner", info.Config.Labels[sandbox.LabelOwner])
}

func TestIntegrationRemoveDuringStep(t *testing.T) {
	rt := newRuntime(t)
	ctx := context.Background()
	for _, mode := range []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec} {
		t.Run(string(mode), func(t *testing.T) {
			sb := newSandbox(t, rt, sandbox.Spec{Mode: mode})
			errc := make(chan error, 1)
			go func() {
				_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "sleep 30"})
				errc <- err
			}()
			time.Sleep(300 * time.Millisecond)
			start := time.Now()
			require.NoError(t, sb.Remove(ctx))
			assert.Less(t, time.Since(start), 10*time.Second)
			select {
			case err := <-errc:
				require.ErrorIs(t, err, sandbox.ErrSandboxGone)
			case <-time.After(10 * time.Second):
				t.Fatal("the running step did not return after Remove")
			}
		})
	}
}
