package tbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSplitScript(t *testing.T) {
	tests := []struct {
		name, script string
		want         []string
	}{
		{"simple", "#!/bin/bash\n# c\necho a\necho b; echo c\n", []string{"echo a", "echo b", "echo c"}},
		{"heredoc", "cat > f <<'EOF'\nx; y\nif\nEOF\necho done\n", []string{"cat > f <<'EOF'\nx; y\nif\nEOF", "echo done"}},
		{"heredoc dash", "cat <<-END >f\n\tbody\n\tEND\nls\n", []string{"cat <<-END >f\n\tbody\n\tEND", "ls"}},
		{"continuation", "apt-get install \\\n  -y x\nls\n", []string{"apt-get install \\\n  -y x", "ls"}},
		{"and or pipe", "make &&\n  make test ||\n  echo no\ncat f |\n wc -l\n", []string{"make &&\n  make test ||\n  echo no", "cat f |\n wc -l"}},
		{"if", "if [ -f x ]; then\n  echo y\nelse\n  echo n\nfi\necho after\n", []string{"if [ -f x ]; then\n  echo y\nelse\n  echo n\nfi", "echo after"}},
		{"for", "for i in 1 2; do\n echo $i; done\necho done\n", []string{"for i in 1 2; do\n echo $i; done", "echo done"}},
		{"while", "while read l; do\n echo \"$l\"\ndone < f\n", []string{"while read l; do\n echo \"$l\"\ndone < f"}},
		{"case", "case $x in\n a) echo a;;\n b|c) echo b ;;\nesac\nls\n", []string{"case $x in\n a) echo a;;\n b|c) echo b ;;\nesac", "ls"}},
		{"function", "f() {\n  echo in\n}\nfunction g {\n echo g\n}\nf\n", []string{"f() {\n  echo in\n}", "function g {\n echo g\n}", "f"}},
		{"quotes", "echo 'a;b' \"c;d\" $(echo e; echo f) `g;h`\n", []string{"echo 'a;b' \"c;d\" $(echo e; echo f) `g;h`"}},
		{"multiline quote", "python3 -c '\nprint(1)\n'\nls\n", []string{"python3 -c '\nprint(1)\n'", "ls"}},
		{"background", "server & sleep 1\n", []string{"server &", "sleep 1"}},
		{"keywords as args", "echo if done fi\nls\n", []string{"echo if done fi", "ls"}},
		{"subshell", "(cd x\n ls)\npwd\n", []string{"(cd x\n ls)", "pwd"}},
		{"set", "set -euo pipefail\n\necho x # trailing\n", []string{"set -euo pipefail", "echo x # trailing"}},
		{"redirect amp", "echo x >&2\nls 2>&1 | cat\n", []string{"echo x >&2", "ls 2>&1 | cat"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmds, err := SplitScript(tt.script)
			require.NoError(t, err)
			var got []string
			for _, c := range cmds {
				got = append(got, c.Text)
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestSplitScriptLines(t *testing.T) {
	cmds, err := SplitScript("#!/bin/sh\n\ncat <<E\na\nE\necho x\n")
	require.NoError(t, err)
	require.Len(t, cmds, 2)
	assert.Equal(t, 3, cmds[0].Line)
	assert.Equal(t, 6, cmds[1].Line)
}

func TestSplitScriptErrors(t *testing.T) {
	for _, s := range []string{"echo 'a", "cat <<EOF\nx\n", "if true; then\necho", "echo $(a", "echo \"x"} {
		_, err := SplitScript(s)
		assert.ErrorIs(t, err, ErrShellSyntax, s)
	}
}

func FuzzSplitScript(f *testing.F) {
	for _, s := range []string{"echo a\n", "cat <<'EOF'\nx\nEOF\n", "if a; then b; fi", "f() { x; }", "case a in b) c;; esac"} {
		f.Add(s)
	}
	addCorpusSeeds(f, "solution.sh")
	f.Fuzz(func(t *testing.T, s string) {
		cmds, err := SplitScript(s)
		if err == nil {
			for _, c := range cmds {
				if c.Text == "" || c.Line < 1 {
					t.Fatalf("bad command %+v", c)
				}
			}
		}
	})
}
