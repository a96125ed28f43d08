package docker

import (
	"archive/tar"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestLabelsRoundTrip(t *testing.T) {
	r := &Runtime{owner: "me"}
	spec := sandbox.Spec{Mode: sandbox.ModeExec, Workdir: "/src", OutputCap: 77, StepTimeout: 3 * time.Second,
		Labels:      map[string]string{sandbox.LabelTask: "t1", LabelMode: "overridden"},
		Annotations: map[string]string{"note": "a/b c"}}.WithDefaults()
	l := r.labels(spec)
	assert.Equal(t, "true", l[sandbox.LabelManaged])
	assert.Equal(t, "me", l[sandbox.LabelOwner])
	assert.Equal(t, "t1", l[sandbox.LabelTask])
	labels, annotations := splitLabels(l)
	assert.Equal(t, map[string]string{"note": "a/b c", sandbox.AnnotationWorkdir: "/src"}, annotations)
	for k, v := range labels {
		assert.True(t, sandbox.ValidLabelValue(v), "label %s=%q is not legal on every backend", k, v)
	}
	got := specFromLabels(l, "/ignored")
	assert.Equal(t, sandbox.ModeExec, got.Mode)
	assert.Equal(t, "/src", got.Workdir)
	assert.Equal(t, 77, got.OutputCap)
	assert.Equal(t, 3*time.Second, got.StepTimeout)
}

func TestSpecFromLabelsLegacyWorkdir(t *testing.T) {
	got := specFromLabels(map[string]string{LabelWorkdir: "/old"}, "/wd")
	assert.Equal(t, "/old", got.Workdir)
}

func TestSpecFromLabelsDefaults(t *testing.T) {
	got := specFromLabels(map[string]string{LabelMode: "bogus", LabelOutputCap: "x"}, "/wd")
	assert.Equal(t, sandbox.ModeSession, got.Mode)
	assert.Equal(t, "/wd", got.Workdir)
	assert.Equal(t, sandbox.DefaultOutputCap, got.OutputCap)
	assert.Equal(t, sandbox.DefaultStepTimeout, got.StepTimeout)
}

func TestTarFile(t *testing.T) {
	for _, tc := range []struct {
		name     string
		owner    *fileOwner
		uid, gid int
	}{
		{"root", nil, 0, 0},
		{"user", &fileOwner{uid: 1000, gid: 1001}, 1000, 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := tarFile([]string{"a", "a/b"}, "a/b/f", []byte("data"), 0o600, tc.owner)
			require.NoError(t, err)
			tr := tar.NewReader(r)
			var names []string
			for {
				h, err := tr.Next()
				if err == io.EOF {
					break
				}
				require.NoError(t, err)
				names = append(names, h.Name)
				assert.Equal(t, []int{tc.uid, tc.gid}, []int{h.Uid, h.Gid}, h.Name)
				if h.Name == "a/b/f" {
					assert.EqualValues(t, 0o600, h.Mode)
					b, err := io.ReadAll(tr)
					require.NoError(t, err)
					assert.Equal(t, "data", string(b))
				}
			}
			assert.Equal(t, []string{"a/", "a/b/", "a/b/f"}, names)
		})
	}
}

func TestCapWriter(t *testing.T) {
	c := &sandbox.CapWriter{Limit: 4}
	_, _ = c.Write([]byte("abc"))
	_, _ = c.Write([]byte("def"))
	c.Freeze()
	_, _ = c.Write([]byte("ghi"))
	res := c.Result(sandbox.ExecResult{})
	assert.Equal(t, "abcd", string(res.Output))
	assert.EqualValues(t, 6, res.OutputBytes)
	assert.True(t, res.Truncated)
}
