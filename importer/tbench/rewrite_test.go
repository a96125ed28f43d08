package tbench

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/images"
)

func TestOfflineRewrite(t *testing.T) {
	toolchain := images.Provided("rbx/buildpack-deps:bookworm")
	require.NotEmpty(t, toolchain)
	tests := []struct {
		name     string
		provides map[string]string
		run      string
		want     string   // rewritten text ("" = unchanged)
		reasons  []string // one substring per replacement
		problems []string // one substring per problem
	}{
		{name: "go tarball and its consumers",
			provides: toolchain,
			run: ` ARCH=$(uname -m) && if [ "$ARCH" = "x86_64" ]; then GOARCH="amd64"; else false; fi && ` +
				`curl -L "https://golang.org/dl/go1.21.5.linux-$GOARCH.tar.gz" -o go.tar.gz && tar -C /usr/local -xzf go.tar.gz && rm go.tar.gz`,
			want:    ` ARCH=$(uname -m) && if [ "$ARCH" = "x86_64" ]; then GOARCH="amd64"; else false; fi && go version && true && true`,
			reasons: []string{"Go 1.21 from Debian", "uses go.tar.gz", "uses go.tar.gz"}},
		{name: "newer go than the image", provides: toolchain,
			run: ` curl -L https://go.dev/dl/go1.23.1.linux-amd64.tar.gz -o go.tgz`, problems: []string{"downloads Go 1.23; the base image provides 1.21"}},
		{name: "rustup", provides: toolchain,
			run:  ` curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y`,
			want: ` rustc --version && cargo --version`, reasons: []string{"Rust 1.85"}},
		{name: "rustup without a toolchain image", provides: nil,
			run: ` curl https://sh.rustup.rs | sh -s -- -y`, problems: []string{"provides no Rust"}},
		{name: "nodesource then apt", provides: toolchain,
			run:  ` curl -fsSL https://deb.nodesource.com/setup_20.x | bash - &&     apt-get install -y nodejs &&     rm -rf /var/lib/apt/lists/*`,
			want: ` node --version &&     apt-get install -y nodejs &&     rm -rf /var/lib/apt/lists/*`, reasons: []string{"asked for Node.js 20"}},
		{name: "npm globals shipped by Debian", provides: toolchain,
			run: ` npm install -g     jest@^29.6.4     @babel/core@^7.25.2     eslint@^8.49.0`, want: ` true`,
			reasons: []string{"eslint 6 for eslint@^8.49.0"}},
		{name: "npm global Debian lacks", provides: toolchain,
			run: ` npm install -g typescript left-pad`, problems: []string{"typescript, left-pad not shipped by Debian"}},
		{name: "pip self-upgrade", provides: toolchain,
			run: ` pip3 install --no-cache-dir --upgrade pip`, want: ` true`, reasons: []string{"keeps Debian's pip"}},
		{name: "pip install of packages stays a problem", provides: toolchain,
			run: ` pip install numpy`, problems: []string{"pip install needs PyPI"}},
		{name: "deadsnakes PPA and python3.11", provides: toolchain,
			run:  ` apt-get update && apt-get install -y software-properties-common && add-apt-repository ppa:deadsnakes/ppa && apt-get install -y python3.11 python3.11-venv`,
			want: ` apt-get update && apt-get install -y software-properties-common && true && apt-get install -y python3.11 python3.11-venv`, reasons: []string{"Python 3.11 comes from Debian"}},
		{name: "python 3.12 is a problem", provides: toolchain,
			run: ` apt-get install -y python3.12`, problems: []string{"needs Python 3.12 (bookworm has 3.11)"}},
		{name: "jdk 21 becomes 17", provides: toolchain,
			run:  ` apt-get update && apt-get install -y     ca-certificates-java     openjdk-21-jdk     && rm -rf /var/lib/apt/lists/*`,
			want: ` apt-get update && apt-get install -y     ca-certificates-java     openjdk-17-jdk     && rm -rf /var/lib/apt/lists/*`, reasons: []string{"openjdk-21-jdk → openjdk-17-jdk"}},
		{name: "every problem of one RUN is named", provides: toolchain,
			run:      " git clone https://x.org/r.git &&\n pip install flask &&\n wget https://x.org/f.tgz",
			problems: []string{"clones", "PyPI", "downloads"}},
		{name: "plain commands stay", provides: toolchain, run: ` mkdir -p /tests && echo 'a && b' > f`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := &offlineRewriter{file: "Dockerfile", provides: tt.provides}
			got, reps, problems := w.rewrite(10, tt.run)
			want := tt.want
			if want == "" {
				want = tt.run
			}
			assert.Equal(t, want, got)
			require.Len(t, reps, len(tt.reasons), "%v", reps)
			for i, r := range reps {
				assert.Contains(t, r.Why, tt.reasons[i])
				assert.Equal(t, "Dockerfile", r.File)
			}
			require.Len(t, problems, len(tt.problems), "%v", problems)
			for i, p := range problems {
				assert.Contains(t, p.Reason, tt.problems[i])
			}
		})
	}
}

func TestOfflineRewriteLines(t *testing.T) {
	w := &offlineRewriter{file: "Dockerfile", provides: images.Provided("rbx/buildpack-deps:bookworm")}
	_, _, problems := w.rewrite(7, " git clone https://x.org/r.git &&\n pip install flask &&\n wget https://x.org/f.tgz")
	require.Len(t, problems, 3)
	assert.Equal(t, []int{7, 8, 9}, []int{problems[0].Line, problems[1].Line, problems[2].Line})
}

func TestRewriteDockerfileReplacesByLine(t *testing.T) {
	src := strings.Join([]string{
		"FROM buildpack-deps:jammy",
		"RUN apt-get update && apt-get install -y \\",
		"    tmux curl",
		"RUN curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y",
		"ENV PATH=\"/root/.cargo/bin:${PATH}\"",
	}, "\n")
	df := rewriteDockerfile("Dockerfile", src, images.DefaultAliases())
	assert.Empty(t, df.problems)
	require.Len(t, df.replacements, 1)
	assert.Equal(t, 4, df.replacements[0].Line)
	assert.Contains(t, df.text, "FROM rbx/buildpack-deps:bookworm")
	assert.Contains(t, df.text, "# rbx import: line 4: Rust 1.85 from Debian")
	assert.Contains(t, df.text, "( rustc --version && cargo --version )\n", "the rewritten RUN, merged with the one before (mergeRuns)")
	assert.Contains(t, df.text, "# rbx import: lines 2, 4: 2 RUN instructions in one")
	assert.Contains(t, df.text, "    tmux curl", "lines without network commands are kept as written")
}
