package images

import (
	"archive/tar"
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/build"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ImageBuild records the build and stores the image with its labels.
func (f *fakeEngine) ImageBuild(_ context.Context, src io.Reader, opts build.ImageBuildOptions) (build.ImageBuildResponse, error) {
	data, err := io.ReadAll(src)
	if err != nil {
		return build.ImageBuildResponse{}, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	labels, err := buildLabels(data)
	if err != nil {
		return build.ImageBuildResponse{}, err
	}
	f.builds = append(f.builds, fakeBuild{opts: opts, context: data, labels: labels})
	for _, tag := range opts.Tags {
		f.images[tag] = labels
	}
	return build.ImageBuildResponse{Body: io.NopCloser(strings.NewReader(`{"stream":"Step 1/2"}` + "\n"))}, nil
}

func toolchainBuilder(t *testing.T) (*Builder, *fakeEngine) {
	t.Helper()
	b, eng := fakeBuilder(t, 1)
	b.recipes = append(b.recipes, Recipe{Name: "rbx/tool:bookworm", Version: 1, Base: "rbx/fake:latest", context: "deveval"})
	return b, eng
}

func TestEnsureToolchainBuildsBaseFirstAndOnce(t *testing.T) {
	b, eng := toolchainBuilder(t)
	ctx := context.Background()
	built, err := b.Ensure(ctx, "rbx/tool:bookworm")
	require.NoError(t, err)
	assert.True(t, built)
	assert.Len(t, eng.imports, 1, "the base recipe was built first")
	require.Len(t, eng.builds, 1)
	assert.Equal(t, []string{"rbx/tool:bookworm"}, eng.builds[0].opts.Tags)
	assert.Equal(t, "1", eng.builds[0].labels[LabelRecipeVersion])
	assert.Empty(t, eng.builds[0].opts.Labels, "the labels are one LABEL in the Dockerfile (one layer commit), not the build's options (one each)")
	assert.Len(t, eng.builds[0].labels[LabelRecipeDigest], 16)

	built, err = b.Ensure(ctx, "rbx/tool:bookworm")
	require.NoError(t, err)
	assert.False(t, built, "same context, same base: cached")
	assert.Len(t, eng.builds, 1)

	eng.images["rbx/tool:bookworm"][LabelRecipeDigest] = "from-another-context"
	built, err = b.Ensure(ctx, "rbx/tool:bookworm")
	require.NoError(t, err)
	assert.True(t, built, "a changed digest rebuilds")
}

func TestToolchainContextIsDeterministic(t *testing.T) {
	for _, r := range Recipes() {
		if r.Base == "" {
			continue
		}
		t.Run(r.Name, func(t *testing.T) {
			a, err := toolchainContext(r, nil)
			require.NoError(t, err)
			b, err := toolchainContext(r, nil)
			require.NoError(t, err)
			assert.Equal(t, a, b)
			df := readTarFile(t, a, "Dockerfile")
			assert.Contains(t, df, "FROM "+r.Base+"\n", "the Dockerfile builds on the recipe's base")
			_, known := Lookup(r.Base)
			assert.True(t, known, "base %s is a recipe", r.Base)
		})
	}
}

func readTarFile(t *testing.T, data []byte, name string) string {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		require.NoError(t, err, "%s not in the context", name)
		if h.Name == name {
			b, err := io.ReadAll(tr)
			require.NoError(t, err)
			return string(b)
		}
	}
}
