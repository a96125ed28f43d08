package sandbox_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

func TestContainerLabelsRoundTrip(t *testing.T) {
	spec := sandbox.Spec{Mode: sandbox.ModeExec, Workdir: "/src", OutputCap: 77, StepTimeout: 3 * time.Second,
		Labels:      map[string]string{sandbox.LabelTask: "t1", sandbox.LabelMode: "overridden"},
		Annotations: map[string]string{"note": "a/b c"}}.WithDefaults()
	l := sandbox.ContainerLabels(spec, "me")
	assert.Equal(t, "true", l[sandbox.LabelManaged])
	assert.Equal(t, "me", l[sandbox.LabelOwner])
	assert.Equal(t, "t1", l[sandbox.LabelTask])
	labels, annotations := sandbox.SplitLabels(l)
	assert.Equal(t, map[string]string{"note": "a/b c", sandbox.AnnotationWorkdir: "/src"}, annotations)
	for k, v := range labels {
		assert.True(t, sandbox.ValidLabelValue(v), "label %s=%q is not legal on every backend", k, v)
	}
	got := sandbox.SpecFromLabels(l, "/ignored")
	assert.Equal(t, sandbox.ModeExec, got.Mode)
	assert.Equal(t, "/src", got.Workdir)
	assert.Equal(t, 77, got.OutputCap)
	assert.Equal(t, 3*time.Second, got.StepTimeout)
}

func TestSpecFromLabelsLegacyWorkdir(t *testing.T) {
	got := sandbox.SpecFromLabels(map[string]string{sandbox.LabelWorkdir: "/old"}, "/wd")
	assert.Equal(t, "/old", got.Workdir)
}

func TestSpecFromLabelsDefaults(t *testing.T) {
	got := sandbox.SpecFromLabels(map[string]string{sandbox.LabelMode: "bogus", sandbox.LabelOutputCap: "x"}, "/wd")
	assert.Equal(t, sandbox.ModeSession, got.Mode)
	assert.Equal(t, "/wd", got.Workdir)
	assert.Equal(t, sandbox.DefaultOutputCap, got.OutputCap)
	assert.Equal(t, sandbox.DefaultStepTimeout, got.StepTimeout)
	got = sandbox.SpecFromLabels(nil, "")
	assert.Equal(t, sandbox.DefaultWorkdir, got.Workdir)
}
