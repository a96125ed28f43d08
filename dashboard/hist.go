package dashboard

import "math"

// hist is a Prometheus histogram: cumulative counts per upper bound.
type hist struct {
	count, sum float64
	le, cum    []float64
}

// add sums two histograms of the same buckets (series of one metric).
func (h hist) add(o hist) hist {
	if h.le == nil {
		return o
	}
	out := hist{count: h.count + o.count, sum: h.sum + o.sum, le: h.le, cum: append([]float64(nil), h.cum...)}
	for i := range out.cum {
		if i < len(o.cum) {
			out.cum[i] += o.cum[i]
		}
	}
	return out
}

// sub is what was observed since an earlier snapshot o.
func (h hist) sub(o hist) hist {
	if o.le == nil || len(o.cum) != len(h.cum) {
		return h
	}
	out := hist{count: h.count - o.count, sum: h.sum - o.sum, le: h.le, cum: append([]float64(nil), h.cum...)}
	for i := range out.cum {
		out.cum[i] -= o.cum[i]
	}
	return out
}

// mean is the mean observation in seconds (NaN without any).
func (h hist) mean() float64 {
	if h.count <= 0 {
		return math.NaN()
	}
	return h.sum / h.count
}

// quantile estimates the q-quantile by linear interpolation inside its
// bucket, as Prometheus' histogram_quantile does (NaN without any).
func (h hist) quantile(q float64) float64 {
	if h.count <= 0 || len(h.le) == 0 {
		return math.NaN()
	}
	rank := q * h.count
	lo, prev := 0.0, 0.0
	for i, le := range h.le {
		if h.cum[i] >= rank {
			if math.IsInf(le, 1) {
				return lo // above the last finite bound: its bound
			}
			if h.cum[i] == prev {
				return le
			}
			return lo + (le-lo)*(rank-prev)/(h.cum[i]-prev)
		}
		lo, prev = le, h.cum[i]
	}
	return lo
}
