package intervene

import "github.com/rbx-sandbox/rbx/evidence"

// EvidenceCost sums what a rollout's evidence cost: scratch sandboxes
// scored (Calls), states found already scored in this run (Memoised),
// steps replayed and milliseconds.
type EvidenceCost struct {
	Calls         int     `json:"calls"`
	Memoised      int     `json:"memoised"`
	StepsReplayed int     `json:"steps_replayed"`
	MS            float64 `json:"ms"`
}

// add counts one scoring: a memoised one cost nothing this time.
func (c *EvidenceCost) add(res *evidence.Result, memoised bool) {
	if memoised {
		c.Memoised++
		return
	}
	c.Calls++
	c.StepsReplayed += res.Cost.StepsReplayed
	c.MS += res.Cost.TotalMS
}
