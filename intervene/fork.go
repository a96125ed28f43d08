package intervene

// ForkPoint is the documented rule that picks where to intervene from the
// rubric scores of a failed rollout: scores[t] is the evidence after its
// first t actions (scores[0] at the checkpoint, scores[n] at its end).
//
//   - If the evidence ever drops, the first action that lowered it went
//     wrong: the fork keeps the actions before it (t with scores[t+1] <
//     scores[t], the smallest such t).
//   - Otherwise the rollout stopped making progress where the evidence
//     reached its final maximum: the fork keeps the actions up to the
//     first t with scores[t] equal to the maximum, and the intervener
//     replaces what came after (with flat evidence, from the start).
func ForkPoint(scores []float64) int {
	for t := 0; t+1 < len(scores); t++ {
		if scores[t+1] < scores[t] {
			return t
		}
	}
	best := 0
	for t, s := range scores {
		if s > scores[best] {
			best = t
		}
	}
	return best
}
