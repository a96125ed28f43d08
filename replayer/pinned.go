package replayer

import (
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Digests are SHA-256 digests of one step's full live output, one per
// comparison, so that prefilter can pin the reference without keeping the
// output itself.
type Digests struct {
	Exact         string `json:"exact"`
	Normalized    string `json:"normalized"`
	NormalizedHex string `json:"normalized_hex"`
}

func digestsOf(out string) *Digests {
	return &Digests{Exact: Digest(CompareExact, out), Normalized: Digest(CompareNormalized, out),
		NormalizedHex: Digest(CompareNormalizedHex, out)}
}

// Of returns the digest for policy p ("" for ignore).
func (d *Digests) Of(p Comparison) string {
	switch p {
	case CompareExact:
		return d.Exact
	case CompareNormalized:
		return d.Normalized
	case CompareNormalizedHex:
		return d.NormalizedHex
	}
	return ""
}

// matches checks live output against a recorded observation under p. A
// pinned digest (output_sha256) is the reference when present: it was
// measured on the verified runs, while the recorded text may come from a
// source that reformats or cuts outputs. want describes the reference for
// a divergence.
func matches(p Comparison, obs *trajectory.Observation, live string) (ok bool, want string) {
	if p == CompareIgnore {
		return true, ""
	}
	if obs.OutputSHA256 != "" {
		return Digest(p, live) == obs.OutputSHA256, "output with sha256 " + obs.OutputSHA256 + " (" + string(p) + ", pinned)"
	}
	return Equal(p, obs.Output, live), quoteExcerpt(obs.Output)
}
