package prefilter

import "regexp"

// networkEvidence finds a verifier output's signs that the tests tried to
// reach the network, which a sandbox without one refuses: the usual
// resolver and connection errors of libc, Python, Java, curl and Node.
var networkEvidence = regexp.MustCompile(`Temporary failure in name resolution|Name or service not known|` +
	`Could not resolve host|java\.net\.UnknownHostException|getaddrinfo (?:ENOTFOUND|EAI_AGAIN)|Network is unreachable`)

// NetworkEvidence returns the first sign in output that the tests tried the
// network ("" when there is none): a verifier failure that shows one is the
// task's own need for the network, not a wrong state.
func NetworkEvidence(output string) string {
	return networkEvidence.FindString(output)
}
