package prefix_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/prefix"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

// TestIntegrationCaptureOpaqueDirectory: a directory the sandbox's root
// cannot search (apt's 0700 _apt partial/ in any image where apt-get ran;
// sandboxes have no DAC_READ_SEARCH) no longer fails every scan: it is
// listed, not entered; a prefix that leaves it alone is captured, one
// that changes it is refused, naming it.
func TestIntegrationCaptureOpaqueDirectory(t *testing.T) {
	const image = "rbx/debian:bookworm"
	rt := dockertest.Runtime(t, image)
	ctx := context.Background()
	const locked = "/var/cache/rbx-test/partial"
	for _, tc := range []struct {
		name   string
		prefix string
		refuse bool
	}{
		{"left alone", "echo hi > /workspace/out.txt", false},
		{"changed", "echo hi > /workspace/out.txt && chmod 0701 " + locked, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sb, err := rt.Create(ctx, sandbox.Spec{Image: image, Mode: sandbox.ModeSession, Workdir: "/workspace"})
			t.Cleanup(func() {
				if sb != nil {
					_ = sb.Remove(context.Background())
				}
			})
			require.NoError(t, err)
			// As the image would hold it, before the prefix starts.
			res, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "mkdir -p " + locked + "/inner && echo x > " + locked + "/inner/f && chown -R 100:65534 " + locked + " && chmod 0700 " + locked + " && sleep 0.2"}) // older than the prefix's start, less its slack
			require.NoError(t, err)
			require.Equal(t, 0, res.ExitCode, string(res.Output))
			src, err := prefix.Begin(ctx, sb, true)
			require.NoError(t, err)
			base, err := src.Scan(ctx)
			require.NoError(t, err, "the scan lists what it cannot enter instead of failing")
			res, err = sb.Exec(ctx, sandbox.ExecRequest{Command: tc.prefix})
			require.NoError(t, err)
			require.Equal(t, 0, res.ExitCode, string(res.Output))
			st, err := src.Capture(ctx, base, 0, 1<<20)
			if !tc.refuse {
				require.NoError(t, err)
				assert.Equal(t, 2, st.Paths, "/workspace and out.txt")
				return
			}
			var nr *prefix.NotReusableError
			require.ErrorAs(t, err, &nr)
			assert.Contains(t, nr.Why, locked)
			assert.Contains(t, nr.Why, "0701")
		})
	}
}
