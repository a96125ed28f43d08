package kubernetes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	nodev1 "k8s.io/api/node/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestWithRuntimeClass(t *testing.T) {
	var c config
	require.NoError(t, WithRuntimeClass("runsc")(&c))
	assert.Equal(t, "runsc", c.runtimeClass)
	for _, name := range []string{"", "no spaces", "/x"} {
		assert.Error(t, WithRuntimeClass(name)(&config{}), name)
	}
}

func TestPodForRuntimeClass(t *testing.T) {
	spec := sandbox.Spec{Image: "rbx/busybox:latest"}.WithDefaults()
	r := testRuntime(sandbox.PullNever)
	p, err := r.podFor("rbx-x", spec)
	require.NoError(t, err)
	assert.Nil(t, p.Spec.RuntimeClassName, "the node's default handler")
	assert.True(t, r.Features().MemoryLimit && r.Features().PrivateNetwork)

	r.cfg.runtimeClass = "runsc"
	p, err = r.podFor("rbx-x", spec)
	require.NoError(t, err)
	require.NotNil(t, p.Spec.RuntimeClassName)
	assert.Equal(t, "runsc", *p.Spec.RuntimeClassName)
	f := r.Features()
	assert.False(t, f.MemoryLimit || f.PrivateNetwork || f.Recycle, "%+v", f)
}

func TestCheckRuntimeClass(t *testing.T) {
	ctx := context.Background()
	r := testRuntime(sandbox.PullNever)
	r.cs = fake.NewClientset()
	r.cfg.runtimeClass = "runsc"
	err := r.checkRuntimeClass(ctx)
	require.ErrorIs(t, err, sandbox.ErrUnsupported)
	assert.Contains(t, err.Error(), `RuntimeClass "runsc"`)
	assert.ErrorIs(t, r.checkRuntimeClass(ctx), sandbox.ErrUnsupported, "remembered")

	r = testRuntime(sandbox.PullNever)
	r.cs = fake.NewClientset(&nodev1.RuntimeClass{ObjectMeta: metav1.ObjectMeta{Name: "runsc"}, Handler: "runsc"})
	r.cfg.runtimeClass = "runsc"
	assert.NoError(t, r.checkRuntimeClass(ctx))
}
