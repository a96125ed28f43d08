// Package testenv holds the one switch that decides whether a test missing
// the Docker engine (or an image, or a host tool the engine tests build
// from) is skipped or failed. It imports nothing from rbx, so every test
// package can use it, including the internal tests of images and
// sandbox/docker that dockertest (which imports sandbox/docker) cannot serve.
package testenv

import (
	"fmt"
	"os"
	"strconv"
	"testing"
)

// RequireDockerEnv names the switch. CI (.ci/run) sets it to 1 so that a
// machine without an engine fails instead of going green with no container
// tested; unset or 0, a missing engine skips the test.
const RequireDockerEnv = "RBX_REQUIRE_DOCKER"

// DockerRequired reports whether RBX_REQUIRE_DOCKER is set to a true value
// (1, true...). A value strconv.ParseBool cannot read is an error, so a
// typo does not quietly turn the switch off.
func DockerRequired() (bool, error) {
	v, ok := os.LookupEnv(RequireDockerEnv)
	if !ok || v == "" {
		return false, nil
	}
	on, err := strconv.ParseBool(v)
	if err != nil {
		return false, fmt.Errorf("%s=%q: want 1 or 0", RequireDockerEnv, v)
	}
	return on, nil
}

// Missing is where a test lands when the engine, an image or a host tool
// the engine tests need is absent: it skips tb with the reason, or fails it
// when RBX_REQUIRE_DOCKER is set. It does not look at -short: a test that
// skips under -short does so before calling it, and stays skipped even in
// CI (make race runs -short).
func Missing(tb testing.TB, format string, args ...any) {
	tb.Helper()
	reason := fmt.Sprintf(format, args...)
	required, err := DockerRequired()
	switch {
	case err != nil:
		tb.Fatalf("%s (and %v)", reason, err)
	case required:
		tb.Fatalf("%s; %s=1 makes this a failure, not a skip", reason, RequireDockerEnv)
	default:
		tb.Skip(reason)
	}
}
