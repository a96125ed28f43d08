package probe

import (
	"fmt"
	"math"
)

// Wilson returns the Wilson score interval of a success rate observed as
// successes out of n, at the normal quantile z (1.96 for 95 %). Unlike
// p̂ ± z·se it stays inside [0, 1] and does not collapse to a point at
// 0/n or n/n, which is what keeps a handful of rollouts from being
// over-read. With n = 0 it is [0, 1].
func Wilson(successes, n int, z float64) (lo, hi float64) {
	if n <= 0 {
		return 0, 1
	}
	nf := float64(n)
	p := float64(successes) / nf
	z2 := z * z
	denom := 1 + z2/nf
	centre := (p + z2/(2*nf)) / denom
	half := z / denom * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return math.Max(0, centre-half), math.Min(1, centre+half)
}

// zFor is the two-sided normal quantile of a confidence level.
func zFor(level float64) (float64, error) {
	if !(level > 0 && level < 1) {
		return 0, fmt.Errorf("confidence %v: expected 0 < level < 1", level)
	}
	// Φ⁻¹((1+level)/2) = √2·erf⁻¹(level).
	return math.Sqrt2 * math.Erfinv(level), nil
}

// FindBottleneck applies the seed's rule to points sorted by k: scanning
// from the end towards the start, the first checkpoint whose p̂ falls
// below theta. Points without a verdict are skipped. It returns the
// point's index, or -1.
func FindBottleneck(points []Point, theta float64) int {
	for i := len(points) - 1; i >= 0; i-- {
		if p := points[i]; p.Known() && p.PHat < theta {
			return i
		}
	}
	return -1
}
