package prefilter

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/rbx-sandbox/rbx/reason"
)

func TestNetworkEvidence(t *testing.T) {
	cases := []struct{ output, want string }{
		{"urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>", "Temporary failure in name resolution"},
		{"curl: (6) Could not resolve host: example.com", "Could not resolve host"},
		{"Exception in thread main java.net.UnknownHostException: services.gradle.org", "java.net.UnknownHostException"},
		{"npm ERR! getaddrinfo EAI_AGAIN registry.npmjs.org", "getaddrinfo EAI_AGAIN"},
		{"FAILED test_x.py::test_y - assert 1 == 2", ""},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, NetworkEvidence(tc.output), tc.output)
	}
	r := Result{Reason: reason.VerifyFailed, Detail: "verifier exited 1",
		Failure: &Failure{Network: "Temporary failure in name resolution", Failing: []string{"test_q.py::test_search"}}}
	assert.Equal(t, `verifier exited 1 (the tests tried the network: "Temporary failure in name resolution"): test_q.py::test_search`, detail(r))
}
