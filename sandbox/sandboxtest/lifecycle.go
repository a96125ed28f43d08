package sandboxtest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func (s *suite) testList(t *testing.T) {
	ctx := context.Background()
	spec := s.specFor(sandbox.ModeExec)
	spec.Annotations = map[string]string{"example.com/note": "/a path, with spaces"}
	sb := s.create(t, spec)
	selector := map[string]string{LabelConformance: spec.Labels[LabelConformance]}

	infos, err := s.rt.List(ctx, selector)
	require.NoError(t, err)
	require.Len(t, infos, 1)
	assert.Equal(t, sb.ID(), infos[0].ID)
	assert.Equal(t, "true", infos[0].Labels[sandbox.LabelManaged])
	assert.NotEmpty(t, infos[0].Labels[sandbox.LabelOwner])
	for k, v := range spec.Labels {
		assert.Equal(t, v, infos[0].Labels[k], "label %s", k)
	}
	assert.Equal(t, "/a path, with spaces", infos[0].Annotations["example.com/note"], "annotations come back apart from labels")
	for k, v := range infos[0].Labels {
		assert.True(t, sandbox.ValidLabelKey(k) && sandbox.ValidLabelValue(v), "label %s=%q is legal on every backend", k, v)
	}

	managed, err := s.rt.List(ctx, map[string]string{sandbox.LabelManaged: "true"})
	require.NoError(t, err)
	assert.True(t, containsID(managed, sb.ID()), "List by %s finds the sandbox", sandbox.LabelManaged)

	require.NoError(t, sb.Remove(ctx))
	infos, err = s.rt.List(ctx, selector)
	require.NoError(t, err)
	assert.Empty(t, infos)
}

func (s *suite) testRemoveTwice(t *testing.T) {
	ctx := context.Background()
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	runOK(t, sb, "sleep 60 >/dev/null 2>&1 &")
	require.NoError(t, sb.Remove(ctx))
	require.NoError(t, sb.Remove(ctx), "second Remove")
	assert.ErrorIs(t, s.rt.Remove(ctx, sb.ID()), sandbox.ErrNotFound, "Runtime.Remove of a removed sandbox")
	_, err := sb.Exec(ctx, sandbox.ExecRequest{Command: "true", Timeout: stepTimeout})
	assert.Error(t, err, "Exec after Remove")
	_, err = s.rt.Open(ctx, sb.ID())
	assert.ErrorIs(t, err, sandbox.ErrNotFound, "Open after Remove")
}

func (s *suite) testOpen(t *testing.T) {
	ctx := context.Background()
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			require.NoError(t, sb.WriteFile(ctx, "opened.txt", []byte("via create"), 0o644))

			opened, err := s.rt.Open(ctx, sb.ID())
			require.NoError(t, err)
			assert.Equal(t, sb.ID(), opened.ID())
			res := runOK(t, opened, `cat opened.txt; echo " $`+suiteVar+`"`)
			assert.Equal(t, "via create "+suiteValue+"\n", string(res.Output))
			require.NoError(t, opened.WriteFile(ctx, "back.txt", []byte("via open"), 0o644))
			got, err := sb.ReadFile(ctx, "back.txt")
			require.NoError(t, err)
			assert.Equal(t, "via open", string(got))
		})
	}
	t.Run("unknown id", func(t *testing.T) {
		_, err := s.rt.Open(ctx, "rbx-conformance-no-such-sandbox")
		assert.ErrorIs(t, err, sandbox.ErrNotFound)
	})
}

func containsID(infos []sandbox.Info, id string) bool {
	for _, in := range infos {
		if in.ID == id {
			return true
		}
	}
	return false
}
