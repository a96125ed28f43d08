package main

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/recycle/agenttest"
)

// TestDemoLocal: with no engine answering, the demo does not fall back to
// host processes (exit 5, naming --runtime local); asked for by name, it
// runs every example on the local runtime, and every verifier passes.
func TestDemoLocal(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/no-engine.sock")
	t.Setenv("CONTAINERD_ADDRESS", t.TempDir()+"/no-engine.sock")
	var out, errOut bytes.Buffer
	code := Run(context.Background(), []string{"demo", "--output", "json"}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	require.Equal(t, exitUnavailable, code, "stderr: %s", errOut.String())
	assert.Contains(t, errOut.String(), "--runtime local")
	assert.Empty(t, out.String())
	if testing.Short() {
		t.Skip("short mode: the demo itself")
	}
	out.Reset()
	errOut.Reset()
	code = Run(context.Background(), []string{"demo", "--output", "json", "--runtime", "local"}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	require.Equal(t, exitOK, code, "stderr: %s", errOut.String())
	assert.NotContains(t, errOut.String(), "warning")
	var rows []demoRow
	require.NoError(t, json.Unmarshal(out.Bytes(), &rows))
	examples := map[string]int{}
	for _, r := range rows {
		assert.True(t, r.Passed, "%s k=%d: %s", r.Example, r.K, r.Error)
		examples[r.Example]++
	}
	assert.Len(t, examples, 3)
	for ex, n := range examples {
		assert.GreaterOrEqual(t, n, 3, "%s: several checkpoints", ex)
	}
}

// TestImagesBuildIfEngine: without an engine, `images build --if-engine`
// warns and succeeds (what make demo relies on), plain `images build` fails.
func TestImagesBuildIfEngine(t *testing.T) {
	t.Setenv("DOCKER_HOST", "unix://"+t.TempDir()+"/no-engine.sock")
	var out, errOut bytes.Buffer
	s := Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}
	assert.Equal(t, exitOK, Run(context.Background(), []string{"images", "build", "--if-engine"}, s), errOut.String())
	assert.Contains(t, errOut.String(), "warning: no container engine answered")
	assert.Equal(t, exitUnavailable, Run(context.Background(), []string{"images", "build"}, s))
}

// TestIntegrationDemo runs the whole demo on Docker: every stage passes,
// and the learning stage shows the seed's result on real sandboxes: the
// policy trained with the served rollback curriculum succeeds from k = 0
// where the one trained from k = 0 for the same budget does not.
func TestIntegrationDemo(t *testing.T) {
	dockerOrSkip(t)
	t.Setenv(recycle.AgentEnv, agenttest.Build(t)) // as make build puts it beside bin/rbx
	var out, errOut bytes.Buffer
	plot := filepath.Join(t.TempDir(), "learn.png")
	code := Run(context.Background(), []string{"demo", "--runtime", "docker", "--plot", plot}, Streams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
	require.Equal(t, exitOK, code, "stderr: %s\nstdout: %s", errOut.String(), out.String())
	assert.Equal(t, 12, strings.Count(out.String(), " passed\n"), "replay stage: 4 checkpoints × 3 examples")
	assert.Contains(t, out.String(), "kept 3, rejected 0")
	wins := func(run string) int {
		m := regexp.MustCompile(regexp.QuoteMeta(run) + `\s+(\d+)/16 `).FindStringSubmatch(out.String())
		require.NotNil(t, m, "%s: no end-to-end line in:\n%s", run, out.String())
		n, err := strconv.Atoi(m[1])
		require.NoError(t, err)
		return n
	}
	rollback, fromStart := wins("rollback (served)"), wins("from k=0 only")
	assert.GreaterOrEqual(t, rollback, 8, "the rollback run's policy solves the task from k=0 most of the time:\n%s", out.String())
	assert.Greater(t, rollback, fromStart, "and better than the k=0 run's:\n%s", out.String())
	assert.FileExists(t, plot)
	assert.Contains(t, errOut.String(), "recycling ended episodes' sandboxes in place")
}
