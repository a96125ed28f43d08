package images

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/client"
	"github.com/docker/docker/pkg/stdcopy"
	"github.com/stretchr/testify/require"
)

// runInImage runs cmd with exec in a throwaway container of img (no
// network) and returns its combined output and exit code.
func runInImage(t *testing.T, cli *client.Client, img string, cmd []string) (string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	created, err := cli.ContainerCreate(ctx, &container.Config{
		Image:  img,
		Cmd:    []string{"sleep", "300"},
		Labels: map[string]string{"rbx.managed": "true", "rbx.task": "images-test"},
	}, &container.HostConfig{NetworkMode: "none"}, nil, nil, "")
	t.Cleanup(func() {
		if created.ID != "" {
			_ = cli.ContainerRemove(context.Background(), created.ID, container.RemoveOptions{Force: true})
		}
	})
	require.NoError(t, err)
	require.NoError(t, cli.ContainerStart(ctx, created.ID, container.StartOptions{}))

	ex, err := cli.ContainerExecCreate(ctx, created.ID, container.ExecOptions{
		Cmd: cmd, AttachStdout: true, AttachStderr: true,
	})
	require.NoError(t, err)
	att, err := cli.ContainerExecAttach(ctx, ex.ID, container.ExecAttachOptions{})
	require.NoError(t, err)
	defer att.Close()
	var out bytes.Buffer
	_, err = stdcopy.StdCopy(&out, &out, att.Reader)
	require.NoError(t, err)
	insp, err := cli.ContainerExecInspect(ctx, ex.ID)
	require.NoError(t, err)
	t.Logf("%v: exit %d: %s", cmd, insp.ExitCode, out.String())
	return out.String(), insp.ExitCode
}
