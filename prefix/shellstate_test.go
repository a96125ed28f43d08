package prefix

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// bashDump builds a dump as dumpScript prints it.
func bashDump(vars, funcs, names, aliases, traps, opts, umask, cwd, extra string) string {
	return "trace noise\n\036S\nbash\n\036V\n" + vars + "\036F\n" + funcs + "\036N\n" + names + "\036A\n" + aliases +
		"\036T\n" + traps + "\036O\n" + opts + "\036U\n" + umask + "\036D\n" + cwd + "\036X\n" + extra + "\036Z hB\n"
}

func TestBashDiffRestoreCheck(t *testing.T) {
	d0, err := parseDump(bashDump(
		"declare -x HOME=\"/root\"\ndeclare -x OLDPWD\ndeclare -- GONE=\"1\"\ndeclare -x RBX_STEP=\"a-1-\"\ndeclare -- __rbx_o=\"hB\"\n",
		"", "", "", "", "set +o errexit\nset +o xtrace\nshopt -u globstar\n", "0022\n", "/workspace\n", "args 0\n"))
	require.NoError(t, err)
	dj, err := parseDump(bashDump(
		"declare -x HOME=\"/root\"\ndeclare -x OLDPWD=\"/workspace\"\ndeclare -x PYTHONPATH=\"/workspace/src\"\ndeclare -a ARR=([0]=\"x\" [1]=$'a\\nb')\ndeclare -x RBX_STEP=\"b-9-\"\n",
		"greet () \n{ \n    echo hi\n}\n", "declare -fx greet\n", "alias ll='ls -l'\n", "trap -- 'echo bye' EXIT\n",
		"set -o errexit\nset +o xtrace\nshopt -s globstar\n", "0077\n", "/workspace/tests\n", "args 0\n"))
	require.NoError(t, err)
	d, err := diffShell(d0, dj, 5)
	require.NoError(t, err)
	for _, want := range []string{
		"cd -- '/workspace/tests'\n",
		"builtin declare -g -x PYTHONPATH=\"/workspace/src\"\n",
		"builtin declare -g -a ARR=([0]=\"x\" [1]=$'a\\nb')\n",
		"builtin declare -g -x OLDPWD=\"/workspace\"\n",
		"builtin unset -v GONE\n",
		"greet () \n{ \n    echo hi\n}\nbuiltin export -f greet\n",
		"builtin unalias -a 2>/dev/null\nalias ll='ls -l'\n",
		"trap -- 'echo bye' EXIT\n",
		"umask 0077\n",
	} {
		assert.Contains(t, d.Restore, want)
	}
	assert.NotContains(t, d.Restore, "RBX_STEP", "the session's own variables are never restored")
	assert.Equal(t, "set -o errexit\nshopt -s globstar", d.Options)
	assert.NoError(t, d.check(dj), "the captured state reads back as itself")
	assert.ErrorContains(t, d.check(d0), "variable")
}

func TestDiffShellNotReusable(t *testing.T) {
	d0, err := parseDump(bashDump("", "", "", "", "", "", "0022\n", "/\n", "args 0\nopen files (-n) 4096\n"))
	require.NoError(t, err)
	dj, err := parseDump(bashDump("", "", "", "", "", "", "0022\n", "/\n", "args 0\nopen files (-n) 64\n"))
	require.NoError(t, err)
	_, err = diffShell(d0, dj, 3)
	var nr *NotReusableError
	require.ErrorAs(t, err, &nr)
	assert.Equal(t, 3, nr.Step)
	assert.Contains(t, nr.Why, "open files")
}

func TestShDiff(t *testing.T) {
	dump := func(vars, exports, aliases, cwd string) string {
		return "\036S\nsh\n\036V\n" + vars + "\036P\n" + exports + "\036R\nreadonly PPID='1'\n\036A\n" + aliases +
			"\036T\n\036O\nset +o errexit\n\036U\n0022\n\036D\n" + cwd + "\036X\nargs 0\n\036Z \n"
	}
	d0, err := parseDump(dump("HOME='/root'\nPATH='/bin'\nX='1'\n", "export HOME='/root'\nexport PATH='/bin'\n", "", "/workspace\n"))
	require.NoError(t, err)
	dj, err := parseDump(dump("HOME='/root'\nMULTI='a\nb'\nPATH='/bin:/x'\nQ='it'\\''s'\n", "export HOME='/root'\nexport PATH='/bin:/x'\nexport MULTI='a\nb'\n", "ll='ls -l'\n", "/workspace/sub\n"))
	require.NoError(t, err)
	assert.Equal(t, "'a\nb'", dj.Vars["MULTI"])
	assert.Equal(t, `'it'\''s'`, dj.Vars["Q"])
	d, err := diffShell(d0, dj, 2)
	require.NoError(t, err)
	for _, want := range []string{"cd -- '/workspace/sub'\n", "unset MULTI 2>/dev/null; MULTI='a\nb'\nexport MULTI\n",
		"PATH='/bin:/x'\nexport PATH\n", "Q='it'\\''s'\n", "unset X\n", "alias ll='ls -l'\n"} {
		assert.Contains(t, d.Restore, want)
	}
	assert.NoError(t, d.check(dj))
}

func TestParseAssignmentsErrors(t *testing.T) {
	for _, in := range []string{"X='unterminated\n", "=oops\n", "X \n"} {
		_, err := parseAssignments(in, "")
		assert.Error(t, err, in)
	}
}
