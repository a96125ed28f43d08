package images

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	ocispec "github.com/opencontainers/image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestFirstFrom(t *testing.T) {
	tests := []struct{ name, dockerfile, want string }{
		{"plain", "FROM rbx/debian:bookworm\nRUN true\n", "rbx/debian:bookworm"},
		{"platform flag", "# c\nfrom --platform=linux/amd64 rbx/deveval:bookworm AS b\n", "rbx/deveval:bookworm"},
		{"none", "RUN true\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, firstFrom(tt.dockerfile))
		})
	}
}

// fakeTaskAPI has one base image and at most one task image, with labels.
type fakeTaskAPI struct {
	baseID string
	labels map[string]string // the task image's; nil: absent
	builds int
}

func (f *fakeTaskAPI) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	switch {
	case ref == "rbx/debian:bookworm":
		return image.InspectResponse{ID: f.baseID}, nil
	case f.labels != nil:
		return image.InspectResponse{ID: "sha256:task", Config: &dockerspec.DockerOCIImageConfig{ImageConfig: ocispec.ImageConfig{Labels: f.labels}}}, nil
	}
	return image.InspectResponse{}, cerrdefs.ErrNotFound
}

func (f *fakeTaskAPI) ImageBuild(_ context.Context, src io.Reader, _ build.ImageBuildOptions) (build.ImageBuildResponse, error) {
	data, err := io.ReadAll(src)
	if err != nil {
		return build.ImageBuildResponse{}, err
	}
	labels, err := buildLabels(data)
	if err != nil {
		return build.ImageBuildResponse{}, err
	}
	f.builds++
	f.labels = labels
	return build.ImageBuildResponse{Body: io.NopCloser(bytes.NewReader([]byte(`{"stream":"ok"}`)))}, nil
}

// A task image is reused while its base is the same image, rebuilt when
// the base was rebuilt (another ID), and rebuilt once when it predates the
// label.
func TestBuildTaskRebuildsOverANewBase(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "Dockerfile"), []byte("FROM rbx/debian:bookworm\n"), 0o644))
	ctx := context.Background()
	f := &fakeTaskAPI{baseID: "sha256:a", labels: map[string]string{"rbx.task-image": "true"}}

	built, err := BuildTask(ctx, f, dir, "rbx-task/x:1", nil)
	require.NoError(t, err)
	assert.True(t, built, "no base label: rebuilt")
	assert.Equal(t, "sha256:a", f.labels[BaseIDLabel])

	built, err = BuildTask(ctx, f, dir, "rbx-task/x:1", nil)
	require.NoError(t, err)
	assert.False(t, built, "same base: reused")

	f.baseID = "sha256:b"
	built, err = BuildTask(ctx, f, dir, "rbx-task/x:1", nil)
	require.NoError(t, err)
	assert.True(t, built, "base rebuilt: task image rebuilt")
	assert.Equal(t, 2, f.builds)
}
