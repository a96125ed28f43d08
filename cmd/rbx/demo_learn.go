package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"

	"github.com/rbx-sandbox/rbx/curriculum/sim"
	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// learnRun is one training of the softmax learner: its episodes in the
// order they ended.
type learnRun struct {
	name       string
	checkpoint json.RawMessage // "auto": the served curriculum; "0": from the start
	pol        *policy.Softmax
	mu         sync.Mutex
	trace      []sim.Point
}

func (r *learnRun) add(k int, ok bool) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.trace = append(r.trace, sim.Point{K: k, Success: ok})
	return len(r.trace)
}

// recent is the success rate and the last k of the last n episodes.
func (r *learnRun) recent(n int) (float64, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	tail := r.trace[max(0, len(r.trace)-n):]
	wins := 0
	for _, p := range tail {
		if p.Success {
			wins++
		}
	}
	return float64(wins) / float64(max(1, len(tail))), tail[len(tail)-1].K
}

// learnWorkers is how many episodes of a run are under way at once, as a
// trainer's rollout workers would.
const learnWorkers = 2

// train plays the run's episode budget through the server, learning from
// each episode's reward.
func (r *learnRun) train(ctx context.Context, s Streams, c *client.Client, taskID string, budget int, seed uint64) error {
	var (
		next int
		mu   sync.Mutex
		wg   sync.WaitGroup
		errs = make([]error, learnWorkers)
	)
	for w := range learnWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(w)))
			for ctx.Err() == nil {
				mu.Lock()
				if next == budget {
					mu.Unlock()
					return
				}
				next++
				mu.Unlock()
				k, ok, err := learnEpisode(ctx, c, r.pol, taskID, r.checkpoint, rng, true)
				if err != nil {
					errs[w] = err
					return
				}
				if n := r.add(k, ok); n%20 == 0 {
					rate, k := r.recent(20)
					fmt.Fprintf(s.Out, "  %-18s %3d/%d episodes  success (last 20) %4.0f%%  k served %d\n", r.name, n, budget, 100*rate, k)
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return fmt.Errorf("%s: %w", r.name, err)
		}
	}
	return ctx.Err()
}

// learnEpisode plays one episode with pol from the checkpoint asked for:
// a reset, the policy's actions from k to the end, the verifier. With
// learn, the reward updates the policy.
func learnEpisode(ctx context.Context, c *client.Client, pol *policy.Softmax, taskID string, checkpoint json.RawMessage, rng *rand.Rand, learn bool) (int, bool, error) {
	rr, err := c.Reset(ctx, server.ResetRequest{Task: taskID, Checkpoint: checkpoint})
	if err != nil {
		return 0, false, err
	}
	ep := rr.Episodes[0].ID
	var choices []policy.Choice
	for i := rr.K; i < pol.Steps(); i++ {
		ci, st := pol.Sample(i, rng)
		choices = append(choices, policy.Choice{I: i, C: ci})
		if st.Action == trajectory.KindNoop {
			continue
		}
		args, err := tools.Arguments(st)
		if err != nil {
			return 0, false, err
		}
		sr, err := c.Step(ctx, ep, server.StepRequest{ToolCall: &server.ToolCall{Name: string(st.Action), Arguments: args}})
		if err != nil {
			return 0, false, err
		}
		if sr.Terminated || sr.Truncated {
			break
		}
	}
	ev, err := c.Evaluate(ctx, ep)
	if err != nil {
		return 0, false, err
	}
	if learn {
		pol.Update(rr.K, choices, ev.Reward)
	}
	return rr.K, ev.Success, nil
}

// endToEnd measures a trained policy from k = 0: n episodes, no learning.
func endToEnd(ctx context.Context, c *client.Client, pol *policy.Softmax, taskID string, n int, seed uint64) (int, error) {
	rng := rand.New(rand.NewPCG(seed, 99))
	wins := 0
	for range n {
		_, ok, err := learnEpisode(ctx, c, pol, taskID, json.RawMessage("0"), rng, false)
		if err != nil {
			return 0, err
		}
		if ok {
			wins++
		}
	}
	return wins, nil
}
