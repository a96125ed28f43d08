package tbench

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMergeRuns(t *testing.T) {
	tests := []struct {
		name       string
		src        []string
		wantFolded int
		want       []string // substrings of the result
		wantNot    []string
	}{
		{
			name:       "consecutive RUNs, comments and blanks between",
			src:        []string{"FROM x", "WORKDIR /app", "RUN rm -rf /app/a.py", "", "# keep the tests private", "RUN chmod 700 /app/tests", "RUN rm -f /app/cfg.json", "ENV A=1"},
			wantFolded: 2,
			want:       []string{"# keep the tests private\n", "# rbx import: lines 3, 6, 7: 3 RUN instructions in one", "RUN ( rm -rf /app/a.py ) && \\\n    ( chmod 700 /app/tests ) && \\\n    ( rm -f /app/cfg.json )\nENV A=1"},
		},
		{
			name:       "continuations kept, a comment inside one dropped as Docker drops it",
			src:        []string{"FROM x", "RUN apt-get update && \\", "# why", "    apt-get install -y gcc", "RUN true"},
			wantFolded: 1,
			want:       []string{"RUN ( apt-get update &&  \\\n    apt-get install -y gcc ) && \\\n    ( true )"},
			wantNot:    []string{"# why"},
		},
		{
			name: "an instruction between breaks the run",
			src:  []string{"FROM x", "RUN a", "COPY b /b", "RUN c"},
			want: []string{"RUN a\nCOPY b /b\nRUN c"},
		},
		{
			name: "exec form, flags, shell comments and heredocs are left alone",
			src:  []string{"FROM x", `RUN ["a"]`, "RUN b", "RUN --mount=type=cache,target=/c c", "RUN d # note", "RUN e <<EOF", "RUN f"},
			want: []string{`RUN ["a"]` + "\nRUN b\nRUN --mount", "RUN d # note\nRUN e <<EOF\nRUN f"},
		},
		{
			name: "a SHELL instruction leaves the file alone",
			src:  []string{"FROM x", `SHELL ["/bin/bash", "-c"]`, "RUN a", "RUN b"},
			want: []string{"RUN a\nRUN b"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines := append([]string(nil), tt.src...)
			folded := mergeRuns(lines, instructions(lines))
			got := strings.Join(lines, "\n")
			assert.Equal(t, tt.wantFolded, folded)
			for _, w := range tt.want {
				assert.Contains(t, got, w)
			}
			for _, w := range tt.wantNot {
				assert.NotContains(t, got, w)
			}
			if tt.wantFolded > 0 {
				assert.Len(t, instructions(strings.Split(got, "\n")), len(instructions(tt.src))-tt.wantFolded, "the Dockerfile still parses, with fewer instructions")
			}
		})
	}
}

// TestMergeRunsKeepsShellSemantics runs each RUN's command the way the
// classic builder does (/bin/sh -c, a shell each) and the merged one, and
// compares what they print and whether they fail: what one RUN sets (cd,
// variables, set -e, exit) must not reach the next.
func TestMergeRunsKeepsShellSemantics(t *testing.T) {
	tests := []struct {
		name string
		runs []string
	}{
		{name: "cd stays in its RUN", runs: []string{"cd /", "pwd"}},
		{name: "variables stay in their RUN", runs: []string{"X=1; export Y=2", `echo "x=$X y=$Y"`}},
		{name: "exit 0 ends only its RUN", runs: []string{"echo a; exit 0; echo never", "echo b"}},
		{name: "set -e stays in its RUN", runs: []string{"set -e; true", "false; echo after"}},
		{name: "a failing RUN stops the build", runs: []string{"echo a", "false", "echo never"}},
		{name: "case patterns inside a subshell", runs: []string{"case x in x) echo matched;; esac", "echo b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sep strings.Builder
			sepFailed := false
			for _, r := range tt.runs {
				out, err := exec.Command("/bin/sh", "-c", r).CombinedOutput()
				sep.Write(out)
				if err != nil {
					sepFailed = true
					break
				}
			}
			lines := []string{"FROM x"}
			for _, r := range tt.runs {
				lines = append(lines, "RUN "+r)
			}
			require.Equal(t, len(tt.runs)-1, mergeRuns(lines, instructions(lines)))
			merged := instructions(strings.Split(strings.Join(lines, "\n"), "\n"))
			require.Len(t, merged, 2)
			cmd := strings.TrimSpace(merged[1].text)[len("RUN"):]
			out, err := exec.Command("/bin/sh", "-c", strings.ReplaceAll(cmd, "\n", " ")).CombinedOutput()
			assert.Equal(t, sep.String(), string(out))
			assert.Equal(t, sepFailed, err != nil, "fails as the separate RUNs did")
		})
	}
}
