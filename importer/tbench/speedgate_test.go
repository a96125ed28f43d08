package tbench

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOnlySpeedGate(t *testing.T) {
	const speedLine = "AssertionError: Expected parallel to be faster (t_par=1.2s, t_seq=1.3s)"
	tests := []struct {
		name    string
		failure string
		want    bool
	}{
		{name: "verifier, speed line only", failure: "verifier: failing [test_outputs.py::test_parallel_pbkdf2_correct_and_faster]\n" + speedLine, want: true},
		{name: "prefilter, speed line only", failure: "rejected: verify: exit 1: failing [test_outputs.py::test_parallel_pbkdf2_correct_and_faster]\n" + speedLine, want: true},
		{name: "another test fails too", failure: "verifier: failing [test_outputs.py::test_outputs_exist test_outputs.py::test_parallel_pbkdf2_correct_and_faster]\n" + speedLine},
		{name: "the speed test fails on correctness", failure: "verifier: failing [test_outputs.py::test_parallel_pbkdf2_correct_and_faster]\nAssertionError: digests differ"},
		{name: "another test only", failure: "verifier: failing [test_outputs.py::test_outputs_exist]\n" + speedLine},
		{name: "prefilter, gate message clipped, pytest's assert", failure: "rejected: verify_failed: verifier exited 1: failing [test_outputs.py::test_parallel_pbkdf2_correct_and_faster]\n…_seq=2.007s, cpus=2).\nE           assert 1.6901712149992818 <= (0.7 * 2.0071213960000023)", want: true},
		{name: "clipped, another assert", failure: "rejected: verify_failed: verifier exited 1: failing [test_outputs.py::test_parallel_pbkdf2_correct_and_faster]\nE           assert 3 == 4"},
		{name: "image build", failure: "image build: exit 1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, onlySpeedGate(tc.failure))
		})
	}
}
