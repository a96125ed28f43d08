package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/server/client"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// player plays episodes through rbx serve's /v1 API as a policy that knows
// the answer: from the served k it sends the reference's own remaining
// actions, so every episode must succeed.
type player struct {
	c     *client.Client
	base  string
	token string

	mu   sync.Mutex
	refs map[string]*trajectory.Trajectory // task@version
}

func newPlayer(base, token string) (*player, error) {
	// A bound on every request: a server that hangs fails the test
	// instead of holding it until its deadline.
	c, err := client.New(base, client.WithToken(token), client.WithHTTPClient(&http.Client{Timeout: 3 * time.Minute}))
	if err != nil {
		return nil, err
	}
	return &player{c: c, base: base, token: token, refs: map[string]*trajectory.Trajectory{}}, nil
}

// open resets task at the curriculum's k and plays n of the reference's
// remaining actions (all with n < 0); it returns the episode and its k.
func (p *player) open(ctx context.Context, task string, n int) (api.EpisodeInfo, []trajectory.Step, error) {
	rr, err := p.c.Reset(ctx, api.ResetRequest{Task: task})
	if err != nil {
		return api.EpisodeInfo{}, nil, fmt.Errorf("reset %s: %w", task, err)
	}
	ep := rr.Episodes[0]
	ref, err := p.ref(ctx, task, ep.RefVersion)
	if err != nil {
		return ep, nil, err
	}
	rest := ref.Steps[ep.K:]
	if n >= 0 && n < len(rest) {
		rest = rest[:n]
	}
	for i, st := range rest {
		if st.Action == trajectory.KindNoop {
			continue // a thought, not a tool call: nothing to send
		}
		args, err := tools.Arguments(st)
		if err != nil {
			return ep, nil, err
		}
		if _, err := p.c.Step(ctx, ep.ID, api.StepRequest{ToolCall: &api.ToolCall{Name: string(st.Action), Arguments: args}}); err != nil {
			return ep, nil, fmt.Errorf("%s (task %s, k=%d) step %d: %w", ep.ID, task, ep.K, ep.K+i, err)
		}
	}
	return ep, ref.Steps[ep.K+len(rest):], nil
}

// episode plays one whole episode of task and evaluates it.
func (p *player) episode(ctx context.Context, task string) (*api.EvaluateResponse, error) {
	ep, _, err := p.open(ctx, task, -1)
	if err != nil {
		return nil, err
	}
	er, err := p.c.Evaluate(ctx, ep.ID)
	if err != nil {
		return nil, fmt.Errorf("evaluate %s (task %s, k=%d): %w", ep.ID, task, ep.K, err)
	}
	return er, nil
}

// outcome is one played episode's.
type outcome struct {
	task    string
	k       int
	success bool
	err     error
}

// play plays n episodes of each task, at most conc at once.
func (p *player) play(ctx context.Context, tasks []string, n, conc int) []outcome {
	out := make([]outcome, 0, n*len(tasks))
	var mu sync.Mutex
	var g errgroup.Group
	g.SetLimit(conc)
	for i := 0; i < n; i++ {
		for _, task := range tasks {
			g.Go(func() error {
				er, err := p.episode(ctx, task)
				o := outcome{task: task, err: err}
				if er != nil {
					o.k, o.success = er.K, er.Success
				}
				mu.Lock()
				out = append(out, o)
				mu.Unlock()
				return nil
			})
		}
	}
	_ = g.Wait()
	return out
}

func (p *player) ref(ctx context.Context, task string, v int) (*trajectory.Trajectory, error) {
	key := fmt.Sprintf("%s@%d", task, v)
	p.mu.Lock()
	ref := p.refs[key]
	p.mu.Unlock()
	if ref != nil {
		return ref, nil
	}
	ref, err := p.c.Reference(ctx, task, v)
	if err != nil {
		return nil, fmt.Errorf("reference of %s: %w", task, err)
	}
	p.mu.Lock()
	p.refs[key] = ref
	p.mu.Unlock()
	return ref, nil
}

// getJSON GETs path with the token into out.
func (p *player) getJSON(ctx context.Context, path string, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, p.base+path, nil)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}
