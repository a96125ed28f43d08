package policy

import (
	"fmt"
	"strings"
)

// Intervention is what an intervener is given besides the episode: the
// task's rubric scored at the state it takes over (reward-side evidence,
// hidden from the policy) and how many actions it may take before the
// policy gets control back.
type Intervention struct {
	Rubric []RubricEvidence `json:"rubric"`
	// Score is the rubric's weighted share of passed items.
	Score float64 `json:"score"`
	// Budget bounds the intervener's actions.
	Budget int `json:"budget"`
}

// RubricEvidence is one rubric item as the intervener sees it: the check
// and whether the current state passes it.
type RubricEvidence struct {
	ID      string  `json:"id"`
	Command string  `json:"command"`
	Weight  float64 `json:"weight"`
	Passed  bool    `json:"passed"`
}

// Prompt is the message that turns a chat agent into the intervener: the
// evidence and the budget. It goes to the intervener's conversation only;
// the episode's trajectory keeps the actions, never this message.
func (iv *Intervention) Prompt() string {
	var b strings.Builder
	fmt.Fprintf(&b, "You are now intervening in this episode: the agent so far has not solved the task. "+
		"Reward-side evidence — the task's grading rubric checked against the current state (score %.2f):\n", iv.Score)
	for _, r := range iv.Rubric {
		mark := "FAIL"
		if r.Passed {
			mark = "pass"
		}
		fmt.Fprintf(&b, "- [%s] %s (weight %g): `%s`\n", mark, r.ID, r.Weight, r.Command)
	}
	fmt.Fprintf(&b, "Correct the course with at most %d tool calls so that the failing checks pass, then call %s: "+
		"the agent takes over again from where you stop.", iv.Budget, SubmitTool)
	return b.String()
}
