package sandboxtest

import (
	"path"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// step is one command of a sequence and what it must print.
type step struct {
	req  sandbox.ExecRequest
	want string
}

// runSteps runs steps in order, each required to exit 0 with its output.
func runSteps(t *testing.T, sb sandbox.Sandbox, steps []step) {
	t.Helper()
	for i, st := range steps {
		res := run(t, sb, st.req)
		assert.Equal(t, 0, res.ExitCode, "step %d %q: output %q", i, st.req.Command, res.Output)
		assert.Equal(t, st.want, string(res.Output), "step %d %q", i, st.req.Command)
	}
}

func cmd(c string) sandbox.ExecRequest { return sandbox.ExecRequest{Command: c} }

func (s *suite) testSessionKeepsState(t *testing.T) {
	sb := s.create(t, s.specFor(sandbox.ModeSession))
	runSteps(t, sb, []step{
		{cmd("mkdir -p sub && cd sub && export RBX_KEEP=kept"), ""},
		{cmd("greet() { echo \"hi $1\"; }"), ""},
		{cmd("sleep 60 >/dev/null 2>&1 &\necho $! > ../bg.pid"), ""},
		{cmd(`basename "$PWD"; echo "$RBX_KEEP"; greet you; kill -0 "$(cat ../bg.pid)" && echo alive`), "sub\nkept\nhi you\nalive\n"},
		// A command in exec mode must not see the session's state (verifiers rely on it).
		{sandbox.ExecRequest{Command: `basename "$PWD"; echo "x=$RBX_KEEP"`, Mode: sandbox.ModeExec}, s.base() + "\nx=\n"},
		{cmd(`basename "$PWD"`), "sub\n"},
	})
}

func (s *suite) testExecDoesNotKeepState(t *testing.T) {
	sb := s.create(t, s.specFor(sandbox.ModeExec))
	runSteps(t, sb, []step{
		{cmd("mkdir -p sub && cd sub && export RBX_KEEP=kept && basename \"$PWD\""), "sub\n"},
		{cmd(`basename "$PWD"; echo "x=$RBX_KEEP"`), s.base() + "\nx=\n"},
	})
}

func (s *suite) testRequestCwdEnv(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			show := `basename "$PWD"; echo "once=$RBX_ONCE"; echo "$` + suiteVar + `"`
			runSteps(t, sb, []step{
				{cmd("mkdir -p sub"), ""},
				{sandbox.ExecRequest{
					Command: show,
					Cwd:     path.Join(s.workdir(), "sub"),
					Env:     map[string]string{"RBX_ONCE": "a 'b' $c", suiteVar: "overridden"},
				}, "sub\nonce=a 'b' $c\noverridden\n"},
				{cmd(show), s.base() + "\nonce=\n" + suiteValue + "\n"},
			})
		})
	}
}

func (s *suite) testExitCodes(t *testing.T) {
	tests := []struct {
		cmd  string
		code int
		out  string
	}{
		{"true", 0, ""},
		{"false", 1, ""},
		{"(exit 7)", 7, ""},
		{"echo out; sh -c 'exit 42'", 42, "out\n"},
		{"no-such-command-rbx 2>/dev/null", 127, ""},
	}
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			for _, tc := range tests {
				res := run(t, sb, cmd(tc.cmd))
				assert.Equal(t, tc.code, res.ExitCode, tc.cmd)
				assert.Equal(t, tc.out, string(res.Output), tc.cmd)
				assert.False(t, res.TimedOut, tc.cmd)
			}
		})
	}
}

func (s *suite) testSyntaxError(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			runOK(t, sb, "export RBX_KEEP=kept")
			for _, bad := range []string{`echo "unterminated`, "if then fi", "echo ok; )"} {
				res := run(t, sb, cmd(bad))
				assert.NotZero(t, res.ExitCode, bad)
				assert.False(t, res.SessionLost, bad)
			}
			want := "ok kept\n"
			if mode == sandbox.ModeExec {
				want = "ok \n"
			}
			res := runOK(t, sb, `echo "ok $RBX_KEEP"`)
			assert.Equal(t, want, string(res.Output))
		})
	}
}

func (s *suite) testInterleaved(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			res := runOK(t, sb, "echo one; echo two >&2; echo three; echo four >&2")
			assert.Equal(t, "one\ntwo\nthree\nfour\n", string(res.Output))
		})
	}
}

func (s *suite) testHeredoc(t *testing.T) {
	script := "cat <<'EOF'\nliteral $" + suiteVar + " `x`\nEOF\n" +
		"cat <<EOF\nexpanded $" + suiteVar + "\nEOF\n" +
		"cat > here.txt <<'EOF'\nline 1\n  line 2\nEOF\ncat here.txt"
	want := "literal $" + suiteVar + " `x`\nexpanded " + suiteValue + "\nline 1\n  line 2\n"
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			res := runOK(t, sb, script)
			assert.Equal(t, want, string(res.Output))
		})
	}
}

func (s *suite) testSpecEnv(t *testing.T) {
	for _, mode := range modes {
		t.Run(string(mode), func(t *testing.T) {
			sb := s.create(t, s.specFor(mode))
			res := runOK(t, sb, `echo "$`+suiteVar+`"`)
			assert.Equal(t, suiteValue+"\n", string(res.Output))
		})
	}
}
