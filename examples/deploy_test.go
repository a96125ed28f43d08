package examples_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
	"github.com/rbx-sandbox/rbx/internal/testenv"
)

const (
	demoSecret = "rbx-demo-secret"
	demoPeriod = 30 * time.Second
)

// runScript runs a deploy-otp script with sh (the host's, or busybox's with
// only busybox applets on PATH) in dir, as the task's environment would.
func runScript(t *testing.T, fl shellFlavor, dir string, env []string, args ...string) (string, int) {
	t.Helper()
	sh := "sh"
	if fl.name == "busybox" {
		sh = fl.argv[0]
		args = append([]string{"sh"}, args...)
	}
	cmd := exec.Command(sh, args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"PATH=" + fl.path}, env...)
	out, err := cmd.CombinedOutput()
	if exit, ok := err.(*exec.ExitError); ok {
		return string(out), exit.ExitCode()
	}
	require.NoError(t, err)
	return string(out), 0
}

// deployDir is a fresh copy of the deploy-otp workspace and verifier.
func deployDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for src, dest := range map[string]string{
		"deploy-otp/workspace/deploy.sh": "deploy.sh",
		"deploy-otp/tests/test.sh":       ".rbx-tests/test.sh",
	} {
		data, err := os.ReadFile(src)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, dest)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, dest), data, 0o755))
	}
	return dir
}

// TestDeployScriptMatchesOTPService checks deploy.sh against otp.Code: a
// code from this window or the last is accepted, older or future ones are
// not. A case that straddles a window boundary is retried.
func TestDeployScriptMatchesOTPService(t *testing.T) {
	env := []string{"OTP_SECRET=" + demoSecret, "OTP_PERIOD=30"}
	tests := []struct {
		name     string
		code     func(now time.Time) string
		accepted bool
	}{
		{"current window", func(now time.Time) string { return otp.Code(demoSecret, now, demoPeriod) }, true},
		{"with trailing newline", func(now time.Time) string { return otp.Code(demoSecret, now, demoPeriod) + "\n" }, true},
		{"one window ago", func(now time.Time) string { return otp.Code(demoSecret, now.Add(-demoPeriod), demoPeriod) }, true},
		{"two windows ago", func(now time.Time) string { return otp.Code(demoSecret, now.Add(-2*demoPeriod), demoPeriod) }, false},
		{"three windows ago", func(now time.Time) string { return otp.Code(demoSecret, now.Add(-3*demoPeriod), demoPeriod) }, false},
		{"next window", func(now time.Time) string { return otp.Code(demoSecret, now.Add(demoPeriod), demoPeriod) }, false},
		{"other secret", func(now time.Time) string { return otp.Code("other", now, demoPeriod) }, false},
		{"garbage", func(time.Time) string { return "not-a-code" }, false},
	}
	for _, fl := range flavors(t) {
		for _, tt := range tests {
			t.Run(fl.name+"/"+tt.name, func(t *testing.T) {
				for attempt := 0; ; attempt++ {
					dir := deployDir(t)
					before := time.Now()
					code := tt.code(before)
					require.NoError(t, os.WriteFile(filepath.Join(dir, ".deploy_otp"), []byte(code), 0o644))
					out, exit := runScript(t, fl, dir, env, "./deploy.sh")
					if otp.Window(time.Now(), demoPeriod) != otp.Window(before, demoPeriod) && attempt < 3 {
						continue
					}
					if !tt.accepted {
						assert.Equal(t, 1, exit)
						assert.Equal(t, "deploy rejected: OTP invalid or expired\n", out)
						assert.NoFileExists(t, filepath.Join(dir, ".deployed"))
						return
					}
					require.Equal(t, 0, exit, out)
					assert.Equal(t, "deployed\n", out)
					deployed, err := os.ReadFile(filepath.Join(dir, ".deployed"))
					require.NoError(t, err)
					fields := strings.Fields(string(deployed))
					require.Len(t, fields, 6, "%q", deployed)
					assert.Equal(t, "deployed with code "+strings.TrimSpace(code)+" at", strings.Join(fields[:5], " "))
					at, err := strconv.ParseInt(fields[5], 10, 64)
					require.NoError(t, err)
					assert.InDelta(t, before.Unix(), at, 2)
					return
				}
			})
		}
	}
}

func TestDeployScriptPreconditions(t *testing.T) {
	for _, fl := range flavors(t) {
		t.Run(fl.name+"/missing otp file", func(t *testing.T) {
			out, exit := runScript(t, fl, deployDir(t), []string{"OTP_SECRET=" + demoSecret}, "./deploy.sh")
			assert.Equal(t, 1, exit)
			assert.Equal(t, "deploy rejected: no OTP found in ./.deploy_otp\n", out)
		})
		t.Run(fl.name+"/no secret", func(t *testing.T) {
			out, exit := runScript(t, fl, deployDir(t), nil, "./deploy.sh")
			assert.Equal(t, 1, exit)
			assert.Equal(t, "deploy rejected: OTP_SECRET is not set\n", out)
		})
		t.Run(fl.name+"/run from another directory", func(t *testing.T) {
			dir := deployDir(t)
			code := otp.Code(demoSecret, time.Now(), demoPeriod)
			require.NoError(t, os.WriteFile(filepath.Join(dir, ".deploy_otp"), []byte(code), 0o644))
			out, exit := runScript(t, fl, t.TempDir(), []string{"OTP_SECRET=" + demoSecret}, filepath.Join(dir, "deploy.sh"))
			assert.Equal(t, 0, exit, out)
			assert.FileExists(t, filepath.Join(dir, ".deployed"))
		})
	}
}

// TestDeployVerifier checks the verifier's own judgement of .deployed.
func TestDeployVerifier(t *testing.T) {
	now := time.Now()
	line := func(code string, at time.Time) string {
		return "deployed with code " + code + " at " + strconv.FormatInt(at.Unix(), 10) + "\n"
	}
	tests := []struct {
		name     string
		deployed *string
		pass     bool
	}{
		{"valid and recent", ptr(line(otp.Code(demoSecret, now, demoPeriod), now)), true},
		{"valid code of the window before", ptr(line(otp.Code(demoSecret, now.Add(-demoPeriod), demoPeriod), now)), true},
		{"missing", nil, false},
		{"forged code", ptr(line("deadbeef", now)), false},
		{"expired code at deploy time", ptr(line(otp.Code(demoSecret, now.Add(-3*demoPeriod), demoPeriod), now)), false},
		{"stale deploy", ptr(line(otp.Code(demoSecret, now.Add(-2*time.Hour), demoPeriod), now.Add(-2*time.Hour))), false},
		{"future deploy", ptr(line(otp.Code(demoSecret, now.Add(time.Hour), demoPeriod), now.Add(time.Hour))), false},
		{"garbage", ptr("deployed\n"), false},
	}
	env := []string{"OTP_SECRET=" + demoSecret, "OTP_PERIOD=30"}
	for _, fl := range flavors(t) {
		for _, tt := range tests {
			t.Run(fl.name+"/"+tt.name, func(t *testing.T) {
				dir := deployDir(t)
				if tt.deployed != nil {
					require.NoError(t, os.WriteFile(filepath.Join(dir, ".deployed"), []byte(*tt.deployed), 0o644))
				}
				out, exit := runScript(t, fl, dir, env, ".rbx-tests/test.sh")
				assert.Equal(t, tt.pass, exit == 0, out)
			})
		}
	}
}

// flavors are the host's sh and, when installed (always when
// RBX_REQUIRE_DOCKER=1: busyboxFlavor then fails without it), busybox sh.
func flavors(t *testing.T) []shellFlavor {
	t.Helper()
	fls := []shellFlavor{hostFlavor()}
	required, _ := testenv.DockerRequired()
	if _, err := exec.LookPath("busybox"); err == nil || required {
		fls = append(fls, busyboxFlavor(t))
	}
	return fls
}

func ptr[T any](v T) *T { return &v }
