package main

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestPrefilterUsage(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no path", []string{"prefilter"}, "expected at least one DIR or FILE"},
		{"resume without report", []string{"prefilter", dir, "--resume"}, "--resume needs --report FILE"},
		{"repeats", []string{"prefilter", dir, "--repeats", "0"}, "--repeats 0: expected ≥ 1"},
		{"concurrency", []string{"prefilter", dir, "-c", "0"}, "--concurrency 0: expected ≥ 1"},
		{"output", []string{"prefilter", dir, "-o", "xml"}, `--output "xml": expected table or json`},
		{"service", []string{"prefilter", dir, "--service", "otp"}, `--service "otp": expected NAME=URL`},
		{"compare", []string{"prefilter", dir, "--compare", "fuzzy"}, "--compare"},
		{"missing dir", []string{"prefilter", filepath.Join(dir, "nope"), "--runtime", "local"}, "no such file or directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := Run(context.Background(), tc.args, Streams{Out: &out, ErrOut: &errOut})
			assert.Equal(t, exitUsage, code, errOut.String())
			assert.Contains(t, errOut.String(), tc.want)
			assert.Empty(t, out.String(), "nothing on stdout")
		})
	}
}
