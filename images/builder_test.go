package images

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/build"
	"github.com/docker/docker/api/types/image"
	"github.com/docker/docker/client"
	dockerspec "github.com/moby/docker-image-spec/specs-go/v1"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeEngine keeps imported images in memory: name -> labels.
type fakeEngine struct {
	mu      sync.Mutex
	images  map[string]map[string]string
	imports []image.ImportOptions
	reply   string // engine response for the next imports
	builds  []fakeBuild
}

type fakeBuild struct {
	opts    build.ImageBuildOptions
	context []byte
	labels  map[string]string // what its Dockerfile labels
}

func (f *fakeEngine) ImageInspect(_ context.Context, ref string, _ ...client.ImageInspectOption) (image.InspectResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	labels, ok := f.images[ref]
	if !ok {
		return image.InspectResponse{}, cerrdefs.ErrNotFound.WithMessage("no such image: " + ref)
	}
	cfg := &dockerspec.DockerOCIImageConfig{}
	cfg.Labels = labels
	return image.InspectResponse{ID: "sha256:" + ref + labels[LabelRecipeVersion], Config: cfg}, nil
}

func (f *fakeEngine) ImageImport(_ context.Context, src image.ImportSource, ref string, opts image.ImportOptions) (io.ReadCloser, error) {
	if _, err := io.Copy(io.Discard, src.Source); err != nil {
		return nil, err
	}
	time.Sleep(20 * time.Millisecond) // widen the window for concurrent callers
	f.mu.Lock()
	defer f.mu.Unlock()
	f.imports = append(f.imports, opts)
	if f.reply != "" {
		return io.NopCloser(strings.NewReader(f.reply)), nil
	}
	labels := map[string]string{}
	for _, c := range opts.Changes {
		if l, ok := strings.CutPrefix(c, "LABEL "); ok {
			for _, kv := range strings.Fields(l) {
				k, v, _ := strings.Cut(kv, "=")
				labels[k] = strings.Trim(v, `"`)
			}
		}
	}
	f.images[ref] = labels
	return io.NopCloser(strings.NewReader(`{"status":"sha256:0123456789abcdef0123"}` + "\n")), nil
}

func fakeBuilder(t *testing.T, version int) (*Builder, *fakeEngine) {
	t.Helper()
	eng := &fakeEngine{images: map[string]map[string]string{}}
	b, err := NewBuilder(eng, WithCacheDir(t.TempDir()))
	require.NoError(t, err)
	b.recipes = []Recipe{{Name: "rbx/fake:latest", Version: version, Changes: []string{`CMD ["sh"]`},
		source: func(context.Context, *Builder, Recipe) (io.ReadCloser, error) {
			return io.NopCloser(strings.NewReader("not really a tar")), nil
		}}}
	return b, eng
}

func TestEnsureIsIdempotent(t *testing.T) {
	b, eng := fakeBuilder(t, 1)
	ctx := context.Background()
	built, err := b.Ensure(ctx, "rbx/fake")
	require.NoError(t, err)
	assert.True(t, built)
	built, err = b.Ensure(ctx, "rbx/fake:latest")
	require.NoError(t, err)
	assert.False(t, built)
	require.Len(t, eng.imports, 1)
	assert.Equal(t, []string{`CMD ["sh"]`, `LABEL rbx.recipe="rbx/fake:latest" rbx.recipe.version="1"`},
		eng.imports[0].Changes)
}

func TestEnsureConcurrentBuildsOnce(t *testing.T) {
	b, eng := fakeBuilder(t, 1)
	var wg sync.WaitGroup
	builds := make([]bool, 4)
	for i := range builds {
		wg.Go(func() {
			built, err := b.Ensure(context.Background(), "rbx/fake")
			assert.NoError(t, err)
			builds[i] = built
		})
	}
	wg.Wait()
	assert.Len(t, eng.imports, 1)
	assert.ElementsMatch(t, []bool{true, false, false, false}, builds)
}

func TestEnsureRebuildsOlderVersion(t *testing.T) {
	b, eng := fakeBuilder(t, 2)
	eng.images["rbx/fake:latest"] = map[string]string{LabelRecipeVersion: "1"}
	built, err := b.Ensure(context.Background(), "rbx/fake")
	require.NoError(t, err)
	assert.True(t, built)
	assert.Equal(t, "2", eng.images["rbx/fake:latest"][LabelRecipeVersion])
}

func TestEnsureErrors(t *testing.T) {
	b, eng := fakeBuilder(t, 1)
	_, err := b.Ensure(context.Background(), "rbx/nope")
	assert.ErrorIs(t, err, ErrUnknownRecipe)

	eng.reply = `{"status":"Importing"}` + "\n" + `{"errorDetail":{"message":"bad tar"},"error":"bad tar"}`
	_, err = b.Ensure(context.Background(), "rbx/fake")
	assert.ErrorIs(t, err, ErrImport)
	assert.ErrorContains(t, err, "bad tar")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	unlock, err := b.lock(context.Background(), "rbx/fake:latest")
	require.NoError(t, err)
	defer unlock()
	_, err = b.Ensure(ctx, "rbx/fake")
	assert.ErrorIs(t, err, context.Canceled, "a waiter gives up with its context")
}

func TestOptions(t *testing.T) {
	_, err := NewBuilder(&fakeEngine{}, WithMirror("ftp://x"))
	assert.Error(t, err)
	_, err = NewBuilder(&fakeEngine{}, WithCacheDir(""))
	assert.Error(t, err)
	t.Setenv("XDG_CACHE_HOME", "/xdg")
	b, err := NewBuilder(&fakeEngine{})
	require.NoError(t, err)
	assert.Equal(t, "/xdg/rbx", b.cfg.cacheDir)
	assert.Equal(t, "/xdg/rbx/images/rbx-debian-bookworm-v1.tar", b.cachedTar(recipes[1]))
}
