package replayer_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

func TestDiff(t *testing.T) {
	many := func(n int, change map[int]string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			l := "line" + strings.Repeat("x", i%3)
			if c, ok := change[i]; ok {
				l = c
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	tests := []struct {
		name           string
		p              replayer.Comparison
		recorded, live string
		want           *replayer.OutputDiff
	}{
		{"equal", replayer.CompareExact, "a\nb\n", "a\nb\n", nil},
		{"normalised noise is no difference", replayer.CompareNormalized, "took 0.5s\n", "took 1.2s\n", nil},
		{"ignore", replayer.CompareIgnore, "a", "b", nil},
		{"at the top, same tails", replayer.CompareNormalized, "Collecting foo==1.2\n" + many(40, nil), "Collecting foo==1.3\n" + many(40, nil),
			&replayer.OutputDiff{Line: 1, From: 1, Expected: []string{"Collecting foo==1.2", "linex", "linexx", "line"}, Got: []string{"Collecting foo==1.3", "linex", "linexx", "line"}}},
		{"in the middle", replayer.CompareExact, many(20, map[int]string{10: "ten"}), many(20, map[int]string{10: "TEN"}),
			&replayer.OutputDiff{Line: 10, From: 7, Expected: []string{"linex", "linexx", "line", "ten", "linexx", "line", "linex"},
				Got: []string{"linex", "linexx", "line", "TEN", "linexx", "line", "linex"}}},
		{"live ends early", replayer.CompareExact, "a\nb\nc\nd", "a\nb",
			&replayer.OutputDiff{Line: 3, From: 1, Expected: []string{"a", "b", "c", "d"}, Got: []string{"a", "b"}}},
		{"a long line is cut", replayer.CompareExact, strings.Repeat("a", 300), strings.Repeat("b", 300),
			&replayer.OutputDiff{Line: 1, From: 1, Expected: []string{strings.Repeat("a", 200) + "…"}, Got: []string{strings.Repeat("b", 200) + "…"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := replayer.Diff(tc.p, tc.recorded, tc.live)
			assert.Equal(t, tc.want, got)
		})
	}
}

// TestDivergenceDiff: an output divergence carries where it starts; a
// pinned digest (no recorded text) carries none.
func TestDivergenceDiff(t *testing.T) {
	r, err := replayer.New(replayer.WithCompare(replayer.CompareExact))
	require.NoError(t, err)
	sb := newFake(map[string]sandbox.ExecResult{"pip": {Output: []byte("Collecting foo==1.3\nok\n")}})
	steps := []trajectory.Step{shell("pip", obs("Collecting foo==1.2\nok\n", 0))}
	_, err = r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: steps}, 1)
	var se *replayer.StepError
	require.ErrorAs(t, err, &se)
	require.NotNil(t, se.Diff)
	assert.Equal(t, 1, se.Diff.Line)
	assert.Equal(t, []string{"Collecting foo==1.2", "ok", ""}, se.Diff.Expected)

	steps[0].Observation = &trajectory.Observation{OutputSHA256: strings.Repeat("0", 64)}
	_, err = r.Replay(context.Background(), sb, &task.Task{ID: "t"}, &trajectory.Trajectory{ID: "x", Steps: steps}, 1)
	require.ErrorAs(t, err, &se)
	assert.Nil(t, se.Diff)
}

func TestReplaceLines(t *testing.T) {
	tests := []struct {
		name, content   string
		start, end      int
		text, want, err string
	}{
		{"middle", "a\nb\nc\nd\n", 2, 3, "B\nC2\nC3", "a\nB\nC2\nC3\nd\n", ""},
		{"delete", "a\nb\nc\n", 2, 2, "", "a\nc\n", ""},
		{"first", "a\nb\n", 1, 1, "z\n", "z\nb\n", ""},
		{"last, no final newline kept", "a\nb", 2, 2, "z", "a\nz", ""},
		{"past the end", "a\nb\n", 2, 3, "z", "", "lines 2:3: the file has 2 lines"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := replayer.ReplaceLines(tc.content, tc.start, tc.end, tc.text)
			if tc.err != "" {
				assert.EqualError(t, err, tc.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}
