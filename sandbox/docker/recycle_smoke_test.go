package docker_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle/recycletest"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
)

// TestIntegrationRecycleUser: a sandbox run as a non-root user recycles
// (the agent runs as root whatever Spec.User), and its workdir stays the
// user's.
func TestIntegrationRecycleUser(t *testing.T) {
	rt := newRecycleRuntime(t, busybox)
	spec := recyclable(busybox, sandbox.ModeSession)
	spec.User = "65534"
	sb := newSandbox(t, rt, spec)
	fresh := recycletest.Digest(t, sb)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "echo hi > f; mkdir -p .x; chmod 000 .x; sleep 1000 >/dev/null 2>&1 & echo ok"})
	require.NoError(t, err)
	require.Contains(t, string(res.Output), "ok")
	rep, err := sb.(sandbox.Recycler).Recycle(ctx)
	require.NoError(t, err)
	assert.Equal(t, 2, rep.Removed)
	recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, sb), "after the user's episode")
	res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: "id -u; touch g && echo ok"})
	require.NoError(t, err)
	assert.Equal(t, "65534\nok\n", string(res.Output))
}

// TestIntegrationRecycleRefused: without an agent, or on a sandbox created
// without Spec.Recycle, recycling is refused with typed errors.
func TestIntegrationRecycleRefused(t *testing.T) {
	plain := newRuntime(t)
	_, err := plain.Create(context.Background(), sandbox.Spec{Image: testImage, Recycle: true})
	require.ErrorIs(t, err, sandbox.ErrUnsupported)
	sb := newSandbox(t, plain, sandbox.Spec{})
	_, err = sb.(sandbox.Recycler).Recycle(context.Background())
	require.ErrorIs(t, err, sandbox.ErrRecycle)
	require.ErrorIs(t, err, sandbox.ErrUnsupported)
	_, err = plain.Create(context.Background(), sandbox.Spec{Image: testImage, Recycle: true, ReadOnlyRoot: true})
	require.ErrorIs(t, err, sandbox.ErrInvalidSpec)
}

// TestIntegrationRecycleSharedListing: the first recyclable sandbox of an
// image sends its whole fresh listing; the next ones, where recycles are
// scoped by the upper layer, list only that layer's directories and the
// other mounts (the rest is the image's, proven lazily), else send
// fingerprints of a whole walk. Either way the sandbox recycles to a state
// identical to a fresh one's, round after round, and an image file a
// round deletes or changes is restored, not taken as the image's.
func TestIntegrationRecycleSharedListing(t *testing.T) {
	for _, tc := range []struct {
		name   string
		opts   []docker.Option
		scoped bool // expect the second listing scoped where the engine allows it
	}{
		{"scoped", nil, true},
		{"full-walks", []docker.Option{docker.WithScopedRecycle(false)}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rt := newRecycleRuntimeWith(t, tc.opts, debian)
			spec := recyclable(debian, sandbox.ModeSession)
			first := newSandbox(t, rt, spec)
			second := newSandbox(t, rt, spec)
			full, fps, scoped := rt.FreshListings()
			assert.Equal(t, 1, full, "whole listings")
			if tc.scoped && scopedHere(t) {
				assert.Equal(t, []int{0, 1}, []int{fps, scoped}, "fingerprint and scoped listings")
			} else {
				assert.Equal(t, []int{1, 0}, []int{fps, scoped}, "fingerprint and scoped listings")
			}
			fresh := recycletest.Digest(t, first)
			recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, second), "the second fresh sandbox")
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			for i := 0; i < 3; i++ {
				res, err := second.Exec(ctx, sandbox.ExecRequest{Command: "echo x >> /etc/passwd && rm -f /usr/bin/yes && chmod 600 /usr/bin/env && touch -r /usr/bin/env /usr/bin/tail && mkdir -p /tmp/d && echo ok"})
				require.NoError(t, err)
				require.Contains(t, string(res.Output), "ok")
				rep, err := second.(sandbox.Recycler).Recycle(ctx)
				require.NoError(t, err)
				assert.Equal(t, 4, rep.Restored, "round %d: /etc/passwd, /usr/bin/yes, /usr/bin/env, /usr/bin/tail", i)
				recycletest.RequireSameDigest(t, fresh, recycletest.Digest(t, second), "after round")
			}
		})
	}
}

// TestIntegrationRecycleSessionShellAlike: the session shell a recycle's
// exec becomes runs exactly as the engine ran the fresh one — user,
// groups, capabilities, no_new_privs, seccomp, signal dispositions,
// environment, directory, umask, limits — as root and as another user.
func TestIntegrationRecycleSessionShellAlike(t *testing.T) {
	const probe = `grep -E '^(Uid|Gid|Groups|Cap|NoNewPrivs|Seccomp|SigIgn|SigBlk)' /proc/$$/status; ` +
		`tr '\0' '\n' < /proc/$$/environ | sort; pwd; umask; ulimit -a`
	for _, tc := range []struct{ image, user string }{{debian, ""}, {busybox, "65534"}} {
		t.Run(tc.image+"/"+tc.user, func(t *testing.T) {
			rt := newRecycleRuntime(t, tc.image)
			spec := recyclable(tc.image, sandbox.ModeSession)
			spec.User = tc.user
			sb := newSandbox(t, rt, spec)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			run := func(cmd string) string {
				res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: cmd})
				require.NoError(t, err)
				require.Zero(t, res.ExitCode, string(res.Output))
				return string(res.Output)
			}
			fresh := run(probe)
			require.Contains(t, fresh, "CapBnd")
			for i := 0; i < 2; i++ {
				run("export LEAK=1; cd /tmp; umask 077; ulimit -n 64; trap '' USR1")
				_, err := sb.(sandbox.Recycler).Recycle(ctx)
				require.NoError(t, err)
				assert.Equal(t, fresh, run(probe), "round %d: the recycled sandbox's session shell", i)
			}
		})
	}
}

// TestIntegrationRecycleListingTakenOnce: recyclable sandboxes of an image
// created together (a pool filling) wait for the one that lists the image
// whole, then list only their upper layer, where recycles are scoped.
func TestIntegrationRecycleListingTakenOnce(t *testing.T) {
	rt := newRecycleRuntime(t, debian)
	spec := recyclable(debian, sandbox.ModeExec)
	var wg sync.WaitGroup
	sbs := make([]sandbox.Sandbox, 3)
	errs := make([]error, 3)
	for i := range sbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			sbs[i], errs[i] = rt.Create(ctx, spec)
		}()
	}
	wg.Wait()
	for i, sb := range sbs {
		if sb != nil {
			t.Cleanup(func() { _ = sb.Remove(context.Background()) })
		}
		require.NoError(t, errs[i])
	}
	full, fps, scoped := rt.FreshListings()
	if !scopedHere(t) { // whole walks each: the ones that start before the first ends send them whole
		assert.Equal(t, 3, full+fps, "whole and fingerprint listings")
		return
	}
	assert.Equal(t, []int{1, 0, 2}, []int{full, fps, scoped}, "whole, fingerprint and scoped listings")
}
