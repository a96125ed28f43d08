package tbench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRewriteTestScriptLines(t *testing.T) {
	tests := []struct {
		name, line, want string
		problem          string
	}{
		{"uv installer", "curl -LsSf https://astral.sh/uv/0.7.13/install.sh | sh", offlineTool + " install-uv", ""},
		{"uv installer wget", "wget -qO- https://astral.sh/uv/install.sh | bash", offlineTool + " install-uv", ""},
		{"apt update", "apt-get update", offlineTool + " apt-get update", ""},
		{"apt install", "apt-get install -y curl", offlineTool + " apt-get install -y curl", ""},
		{"apt after &&", "apt-get update && apt-get install -y git", offlineTool + " apt-get update && " + offlineTool + " apt-get install -y git", ""},
		{"pip", "pip install -r docs/requirements.txt", offlineTool + " pip install -r docs/requirements.txt", ""},
		{"pip3 fallback", "pip3 install pytest 2>/dev/null || pip install pytest", offlineTool + " pip install pytest 2>/dev/null || " + offlineTool + " pip install pytest", ""},
		{"python -m pip", "python3 -m pip install numpy", offlineTool + " pip install numpy", ""},
		{"uv init", "uv init", StandinDir + "/uv init", ""},
		{"uv add", "uv add pytest==8.4.1", StandinDir + "/uv add pytest==8.4.1", ""},
		{"uv run in if", "if uv run pytest x; then", "if " + StandinDir + "/uv run pytest x; then", ""},
		{"uvx", "uvx -p 3.13 -w pytest pytest /tests", StandinDir + "/uv tool run -p 3.13 -w pytest pytest /tests", ""},
		{"googletest", "git clone https://github.com/google/googletest.git -b v1.14.0", offlineTool + " git-clone googletest -b v1.14.0", ""},
		{"npm install", "    npm install", "    " + offlineTool + " npm-install", ""},
		{"npm in subshell", "if (npm install;npm run coverage) > log; then", "if (" + offlineTool + " npm-install;npm run coverage) > log; then", ""},
		{"cargo add", "    cargo add regex 2>/dev/null || true", "    " + offlineTool + " cargo-add regex 2>/dev/null || true", ""},
		{"cargo word kept", "cargo test --verbose", "cargo test --verbose", ""},
		{"uv word kept", "echo uv is fine", "echo uv is fine", ""},
		{"source env kept", "source $HOME/.local/bin/env", "source $HOME/.local/bin/env", ""},
		{"gradle wrapper", "if (./gradlew test) > /app/unit_test.log 2>&1; then", "", "Gradle"},
		{"gradle wrapper after &&", "cd app && ./gradlew build", "", "Gradle"},
		{"gradle wrapper only made executable", `if [ -f "./gradlew" ]; then chmod +x ./gradlew; fi`, `if [ -f "./gradlew" ]; then chmod +x ./gradlew; fi`, ""},
		{"other download", "wget https://chromedriver.storage.googleapis.com/2.46/x.zip", "", "downloads from the network"},
		{"other clone", "git clone https://github.com/x/y.git", "", "clones from the network"},
		{"npm package", "npm install -g jest", "", "registry"},
		{"localhost", "curl http://localhost:8080/health", "curl http://localhost:8080/health", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, reps, probs := rewriteTestScript("run-tests.sh", "#!/bin/bash\n"+tt.line+"\n")
			if tt.problem != "" {
				require.Len(t, probs, 1)
				assert.Contains(t, probs[0].Reason, tt.problem)
				assert.Equal(t, 2, probs[0].Line)
				return
			}
			assert.Empty(t, probs)
			assert.Equal(t, "#!/bin/bash\n"+tt.want+"\n", out)
			if tt.want != tt.line {
				require.Len(t, reps, 1)
				assert.Equal(t, Replacement{File: "run-tests.sh", Line: 2, Original: tt.line, Replacement: tt.want, Why: reps[0].Why}, reps[0])
			} else {
				assert.Empty(t, reps)
			}
		})
	}
}

func TestRewriteTestScriptReportsEveryProblem(t *testing.T) {
	script := "set -e\nwget https://a.example/x\ngit clone https://github.com/x/y\n./gradlew test\n"
	_, _, probs := rewriteTestScript("run-tests.sh", script)
	require.Len(t, probs, 3)
	assert.Equal(t, []int{2, 3, 4}, []int{probs[0].Line, probs[1].Line, probs[2].Line})
}

func TestDeadBranches(t *testing.T) {
	script := `if [ "python" = "java" ]; then
    ./gradlew test
    if [ -d x ]; then
        wget https://example.com/a
    fi
elif [ "python" = "go" ]; then
    go get x
elif [ "python" = "python" ]; then
    pip install pytest
else
    npm install -g jest
fi
if [ "$LANG" = "java" ]; then
    wget https://example.com/live
fi`
	out, reps, probs := rewriteTestScript("run-tests.sh", script)
	require.Len(t, reps, 1)
	assert.Equal(t, 9, reps[0].Line)
	require.Len(t, probs, 1, "%v", probs)
	assert.Equal(t, 14, probs[0].Line)
	assert.Contains(t, out, "    ./gradlew test\n", "dead lines are kept as written")
}

func FuzzRewriteTestScript(f *testing.F) {
	f.Add("if [ \"a\" = \"b\" ]; then\npip install x\nfi\n")
	f.Add("apt-get update\ncurl -LsSf https://astral.sh/uv/install.sh | sh\nuv run pytest\n")
	addCorpusSeeds(f, "run-tests.sh")
	f.Fuzz(func(t *testing.T, s string) {
		out, reps, probs := rewriteTestScript("run-tests.sh", s)
		lines := strings.Split(s, "\n")
		require.Equal(t, len(lines), len(strings.Split(out, "\n")), "every line is kept")
		for _, r := range reps {
			require.Equal(t, lines[r.Line-1], r.Original)
		}
		for _, p := range probs {
			require.GreaterOrEqual(t, p.Line, 1)
			require.LessOrEqual(t, p.Line, len(lines))
		}
	})
}
