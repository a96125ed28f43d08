// Package sandboxtest is the conformance suite every sandbox backend runs
// from its own tests:
//
//	func TestIntegrationConformance(t *testing.T) {
//		rt := newRuntime(t) // skip here when the engine is absent
//		sandboxtest.Run(t, rt, sandbox.Spec{Image: "rbx/busybox:test"})
//	}
//
// Commands use only what POSIX sh and busybox provide, so the suite passes on
// a busybox image without bash as well as on Debian.
package sandboxtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"maps"
	"path"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// LabelConformance is the label each suite sandbox carries, with a value
// unique to that sandbox, so List can be checked without seeing others.
const LabelConformance = "rbx.conformance"

// suiteVar and suiteValue are set through Spec.Env in every suite sandbox.
const (
	suiteVar   = "RBX_SUITE_VAR"
	suiteValue = "hello suite"
)

// stepTimeout bounds every command the suite runs unless a test says otherwise.
const stepTimeout = 20 * time.Second

// modes are the execution modes table-driven tests run in.
var modes = []sandbox.Mode{sandbox.ModeSession, sandbox.ModeExec}

// suite carries what every test needs.
type suite struct {
	rt    sandbox.Runtime
	spec  sandbox.Spec
	feats sandbox.Features // what rt declares; other cases are skipped by name
}

// Run runs the conformance suite against rt. spec supplies the image and
// whatever else the backend needs; the suite sets Mode, labels, env and
// output caps per test and creates (and removes) one sandbox per test.
// Cases for a guarantee the runtime does not declare (sandbox.FeaturesOf)
// are skipped, naming the feature.
func Run(t *testing.T, rt sandbox.Runtime, spec sandbox.Spec) {
	t.Helper()
	s := &suite{rt: rt, spec: spec, feats: sandbox.FeaturesOf(rt)}
	tests := []struct {
		name string
		fn   func(*testing.T)
	}{
		{"SessionKeepsState", s.testSessionKeepsState},
		{"ExecDoesNotKeepState", s.testExecDoesNotKeepState},
		{"RequestCwdEnvApplyOnce", s.testRequestCwdEnv},
		{"ExitCodeIsResult", s.testExitCodes},
		{"SyntaxError", s.testSyntaxError},
		{"StepTimeout", s.testStepTimeout},
		{"BusyLoopTimeout", s.testBusyLoop},
		{"SessionLost", s.testSessionLost},
		{"LostSessionStaysLost", s.testLostStaysLost},
		{"EndingShellInExecMode", s.testEndShellExecMode},
		{"Cancel", s.testCancel},
		{"TraceKeepsSession", s.testTraceKeepsSession},
		{"ForgedSentinel", s.testForgedSentinel},
		{"OutputCap", s.testOutputCap},
		{"LargeOutput", s.testLargeOutput},
		{"Interleaved", s.testInterleaved},
		{"Heredoc", s.testHeredoc},
		{"SpecEnv", s.testSpecEnv},
		{"Files", s.testFiles},
		{"ReadMissing", s.testReadMissing},
		{"FilesOutsideSession", s.testFilesOutsideSession},
		{"List", s.testList},
		{"RemoveTwice", s.testRemoveTwice},
		{"Open", s.testOpen},
		{"Terminal", s.testTerminal},
		{"TerminalInterrupt", s.testTerminalInterrupt},
		{"Stdin", s.testStdin},
		{"BackgroundJobs", s.testBackgroundJobs},
		{"BigFiles", s.testBigFiles},
		{"Permissions", s.testPermissions},
		{"Concurrent", s.testConcurrent},
		{"PidsLimit", s.testPidsLimit},
		{"MemoryLimit", s.testMemoryLimit},
		{"FileSizeLimit", s.testFileSizeLimit},
		{"NoNetwork", s.testNoNetwork},
		{"BridgeNetwork", s.testBridgeNetwork},
		{"User", s.testUser},
		{"FileAccess", s.testFileAccess},
		{"ReadOnlyRoot", s.testReadOnlyRoot},
		{"ReadOnlyRootSeeded", s.testReadOnlyRootSeeded},
		{"Recycle", s.testRecycle},
	}
	for _, tc := range tests {
		t.Run(tc.name, tc.fn)
	}
}

// specFor returns a copy of the suite's spec in mode, with a unique
// conformance label and the suite's env variable.
func (s *suite) specFor(mode sandbox.Mode) sandbox.Spec {
	spec := s.spec
	spec.Mode = mode
	spec.Labels = maps.Clone(spec.Labels)
	if spec.Labels == nil {
		spec.Labels = map[string]string{}
	}
	spec.Labels[LabelConformance] = uniqueValue()
	spec.Env = maps.Clone(spec.Env)
	if spec.Env == nil {
		spec.Env = map[string]string{}
	}
	spec.Env[suiteVar] = suiteValue
	return spec
}

// create makes a sandbox from spec and removes it when the test ends.
func (s *suite) create(t *testing.T, spec sandbox.Spec) sandbox.Sandbox {
	t.Helper()
	sb, err := s.rt.Create(context.Background(), spec)
	t.Cleanup(func() {
		if sb == nil {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		assert.NoError(t, sb.Remove(ctx), "remove sandbox")
	})
	require.NoError(t, err, "create sandbox")
	return sb
}

// workdir is the sandbox's working directory as commands see it.
func (s *suite) workdir() string { return s.spec.WithDefaults().Workdir }

// run executes req, which must not fail as an error.
func run(t *testing.T, sb sandbox.Sandbox, req sandbox.ExecRequest) sandbox.ExecResult {
	t.Helper()
	if req.Timeout == 0 {
		req.Timeout = stepTimeout
	}
	res, err := sb.Exec(context.Background(), req)
	require.NoError(t, err, "exec %q", req.Command)
	return res
}

// runOK executes cmd and requires exit status 0.
func runOK(t *testing.T, sb sandbox.Sandbox, cmd string) sandbox.ExecResult {
	t.Helper()
	res := run(t, sb, sandbox.ExecRequest{Command: cmd})
	require.Equal(t, 0, res.ExitCode, "exec %q: output %q", cmd, res.Output)
	return res
}

func uniqueValue() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// base is the last element of the workdir, as `basename "$PWD"` prints it.
func (s *suite) base() string { return path.Base(s.workdir()) }
