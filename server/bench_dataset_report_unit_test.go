package server_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJudgeDataset(t *testing.T) {
	eng := engineRate{PerSecond: 5}
	small := &settingFigures{Name: "10 tasks", EpisodesPerS: 10, PeakMemMiB: 1024, HealthyS: 1}
	tests := []struct {
		name    string
		large   *settingFigures
		busybox *settingFigures
		want    map[string]string // target name → verdict
	}{
		{name: "all met", large: &settingFigures{Name: "1000 tasks", EpisodesPerS: 12, PeakLive: 100, Budget: 128, PeakMemMiB: 4096, HealthyS: 10},
			want: map[string]string{
				"episodes/s 1000 tasks / 10 tasks": "met", "episodes/s 1000 tasks / engine create+start+remove rate": "met",
				"peak live / budget, 1000 tasks": "met", "shims + rbx peak memory, 1000 tasks": "met", "start-up to /healthz, 1000 tasks": "met",
				"peak live / budget, 10 tasks": "n/a",
			}},
		{name: "none met", large: &settingFigures{Name: "1000 tasks", EpisodesPerS: 7, PeakLive: 200, Budget: 128, PeakMemMiB: 5000, HealthyS: 30},
			want: map[string]string{
				"episodes/s 1000 tasks / 10 tasks": "NOT met", "episodes/s 1000 tasks / engine create+start+remove rate": "NOT met",
				"peak live / budget, 1000 tasks": "NOT met", "shims + rbx peak memory, 1000 tasks": "NOT met", "start-up to /healthz, 1000 tasks": "NOT met",
			}},
		{name: "the busybox setting beside, not judged", large: &settingFigures{Name: "1000 tasks", EpisodesPerS: 9, PeakMemMiB: 1, HealthyS: 1},
			busybox: &settingFigures{Name: "10 busybox tasks", EpisodesPerS: 18, PeakMemMiB: 1, HealthyS: 1},
			want: map[string]string{
				"episodes/s 1000 tasks / 10 tasks": "met", "episodes/s 1000 tasks / 10 busybox tasks (not judged)": "n/a",
				"start-up to /healthz, 10 busybox tasks": "met",
			}},
		{name: "large setting missing", large: nil,
			want: map[string]string{"episodes/s 1000 tasks / 10 tasks": "n/a", "start-up to /healthz, 10 tasks": "met"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var buf bytes.Buffer
			writeTargets(&buf, judge(eng, small, tc.large, tc.busybox))
			lines := map[string]string{}
			for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
				name, _, _ := strings.Cut(l, "  ")
				lines[strings.TrimSpace(name)] = l[strings.LastIndex(l, ": ")+2:]
			}
			for name, verdict := range tc.want {
				require.Contains(t, lines, name)
				assert.Equal(t, verdict, lines[name], name)
			}
		})
	}
}

func TestWriteTable(t *testing.T) {
	var buf bytes.Buffer
	writeTable(&buf, []settingFigures{
		{Name: "10 tasks", Images: []string{"rbx/busybox:latest"}, Flags: []string{"--pool", "4"}, EpisodesPerS: 3.456, Creates: 40, CreatesPerEp: 0.5},
		{Name: "1000 tasks", Images: []string{"rbx/busybox:latest", "rbx/debian:bookworm"}},
	})
	out := buf.String()
	assert.Contains(t, out, "| figure | 10 tasks | 1000 tasks |\n|---|---:|---:|\n")
	assert.Contains(t, out, "| serve flags | --pool 4 | - |")
	assert.Contains(t, out, "| images | busybox | busybox, debian |")
	assert.Contains(t, out, "| episodes/s | 3.46 | 0.00 |")
	assert.Contains(t, out, "| sandboxes created per episode | 0.50 (40) | 0.00 (0) |")
	assert.Contains(t, out, "| budget (/healthz capacity.max) | not reported | not reported |")
	assert.Equal(t, len(datasetRows)+2, strings.Count(out, "\n"))
}
