package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/sync/errgroup"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
	"github.com/rbx-sandbox/rbx/server/api"
	"github.com/rbx-sandbox/rbx/server/client"
)

// BenchmarkIntegrationChaos drives `rbx serve` (the real binary) like a
// trainer while an injector breaks what it stands on (docs/durability.md):
// it kills sandboxes in use (docker kill), freezes some past their
// deadlines (docker pause for 30 s against a 5 s step timeout), and
// kill -9s the server twice, restarting it on the same state and port.
// Each episode's intended reward is known by construction (a policy that
// does the task, one that does not, one that exhausts its sandbox's
// processes), so every outcome is checked. It prints episodes, those hit
// by a fault, recovered, infrastructure-failed by reason, policy-failed,
// and rewards that differ from the intended ones (must be 0); at least
// 95 % of the episodes hit whose steps are deterministic must finish with
// the intended reward. RBX_BENCH_CHAOS_SECONDS sets the run's length
// (default 120). Run with -benchtime 1x.
func BenchmarkIntegrationChaos(b *testing.B) {
	rt := dockertest.Runtime(b, imgDebian)
	bin, from := buildServeBinary(b)
	inj := &dockerInjector{cli: rt.Client()}
	var rep chaosReport
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep = runChaos(b, bin, inj, nil)
	}
	b.StopTimer()
	rep.From = from
	rep.print(os.Stdout)
	rep.judge(b)
}

// chaosTasks writes n Debian session tasks whose verifier checks that
// /work/out holds "ok"; their references make /work.
func chaosTasks(b *testing.B, n int) string {
	b.Helper()
	dir := b.TempDir()
	for i := 0; i < n; i++ {
		id := fmt.Sprintf("chaos-%02d", i)
		td := filepath.Join(dir, id)
		require.NoError(b, os.MkdirAll(td, 0o755))
		tk := "id: " + id + "\ninstruction: write ok to /work/out\nimage: rbx/debian:bookworm\nworkdir: /root\nshell: session\n" +
			"limits: {pids: 64, step_timeout: 5s}\nverify: {command: \"grep -qx ok /work/out\", timeout: 10s}\n"
		require.NoError(b, os.WriteFile(filepath.Join(td, "task.yaml"), []byte(tk), 0o644))
		traj := `{"id": "` + id + `-ref", "task": "task.yaml", "steps": [
			{"action": "shell", "command": "mkdir -p /work", "observation": {"output": "", "exit_code": 0}},
			{"action": "shell", "command": "echo a > /work/a; cat /work/a", "observation": {"output": "a\n", "exit_code": 0}},
			{"action": "shell", "command": "echo ok > /work/out", "observation": {"output": "", "exit_code": 0}}]}`
		require.NoError(b, os.WriteFile(filepath.Join(td, "trajectory.json"), []byte(traj), 0o644))
	}
	return dir
}

// policyKind is what a chaos episode's policy does, and so its intended
// reward.
type policyKind int

const (
	doesTask  policyKind = iota // intended reward 1
	skipsTask                   // intended reward 0
	exhausts                    // takes every process slot: the policy's failure, 0
)

func (k policyKind) steps() []string {
	switch k {
	case exhausts:
		return []string{"mkdir -p /work; echo x1 >> /work/f",
			"for j in 1 2 3; do (while :; do sleep 1000 & done) >/dev/null 2>&1 & done; sleep 2; echo planted"}
	case skipsTask:
		return []string{"mkdir -p /work; echo x1 >> /work/f", "echo x2 >> /work/f; cat /work/f", "echo no > /work/out"}
	}
	return []string{"mkdir -p /work; echo x1 >> /work/f", "echo x2 >> /work/f; cat /work/f", "echo ok > /work/out"}
}

func (k policyKind) intended() float64 {
	if k == doesTask {
		return 1
	}
	return 0
}

// chaosEpisode is what one episode saw.
type chaosEpisode struct {
	kind      policyKind
	hit       bool // a fault touched it: a repair, a lost connection, an infrastructure end
	recovered int
	finished  bool
	reward    float64
	end       *api.End
	err       string
}

// injector breaks sandboxes of the server whose process is pid.
type injector interface {
	kill(ctx context.Context, pid int, rng *rand.Rand) (string, error)
	freeze(ctx context.Context, pid int, rng *rand.Rand, d time.Duration) (string, error)
}

// chaosServer is the restartable server under test: one state and port.
type chaosServer struct {
	b     *testing.B
	bin   string
	tasks string
	flags []string
	mu    sync.Mutex
	proc  *serveProc
}

func (s *chaosServer) pid() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.proc.cmd.Process.Pid
}

// crash kill -9s the server and starts a new one on the same state.
func (s *chaosServer) crash(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.proc.cmd.Process.Kill(); err != nil {
		return fmt.Errorf("kill -9 rbx serve: %w", err)
	}
	err := <-s.proc.exited
	s.proc.exited <- err
	p, err := startServe(ctx, s.b, s.bin, s.tasks, s.flags)
	if err != nil {
		return fmt.Errorf("restart rbx serve: %w", err)
	}
	s.proc = p
	return nil
}

// runChaos runs the trainer and the injector for the run's length.
func runChaos(b *testing.B, bin string, inj injector, extra []string) chaosReport {
	ctx := context.Background()
	seconds := envInt(b, "RBX_BENCH_CHAOS_SECONDS", 120)
	tasks := chaosTasks(b, 6)
	state := filepath.Join(b.TempDir(), "state.db")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(b, err)
	addr := ln.Addr().String()
	require.NoError(b, ln.Close())
	flags := append([]string{"--state", state, "--addr", addr, "--max-sandboxes", "16", "--episode-ttl", "3m"}, extra...)
	p, err := startServe(ctx, b, bin, tasks, flags)
	require.NoError(b, err)
	srv := &chaosServer{b: b, bin: bin, tasks: tasks, flags: flags, proc: p}
	c, err := client.New("http://" + addr)
	require.NoError(b, err)

	runCtx, stop := context.WithTimeout(ctx, time.Duration(seconds)*time.Second)
	defer stop()
	rep := chaosReport{Seconds: seconds, Infra: map[string]int{}}
	var mu sync.Mutex
	var eps []*chaosEpisode
	g := errgroup.Group{}
	for w := 0; w < 4; w++ {
		rng := rand.New(rand.NewPCG(uint64(w), 7))
		g.Go(func() error {
			for runCtx.Err() == nil {
				kind := doesTask
				switch r := rng.IntN(20); {
				case r == 0:
					kind = exhausts
				case r < 10:
					kind = skipsTask
				}
				task := fmt.Sprintf("chaos-%02d", rng.IntN(6))
				ep := playChaos(ctx, c, task, kind)
				mu.Lock()
				eps = append(eps, ep)
				mu.Unlock()
			}
			return nil
		})
	}
	g.Go(func() error { // the injector
		rng := rand.New(rand.NewPCG(99, 1))
		crashes := []time.Duration{time.Duration(seconds) * time.Second / 3, 2 * time.Duration(seconds) * time.Second / 3}
		start := time.Now()
		for runCtx.Err() == nil {
			select {
			case <-runCtx.Done():
				return nil
			case <-time.After(1500 * time.Millisecond):
			}
			if len(crashes) > 0 && time.Since(start) > crashes[0] {
				crashes = crashes[1:]
				if err := srv.crash(ctx); err != nil {
					return err
				}
				rep.Crashes++
				continue
			}
			if rng.IntN(4) == 0 {
				if what, err := inj.freeze(ctx, srv.pid(), rng, 30*time.Second); err == nil && what != "" {
					rep.Frozen++
				}
				continue
			}
			if what, err := inj.kill(ctx, srv.pid(), rng); err == nil && what != "" {
				rep.Killed++
			}
		}
		return nil
	})
	require.NoError(b, g.Wait())
	require.NoError(b, srv.proc.stop())
	rep.fill(eps)
	return rep
}

// playChaos plays one episode like a trainer that retries what the
// infrastructure interrupts: a lost connection or a 5xx retried (steps
// by their step number, so a retry never runs an action twice), a 429
// waited out.
func playChaos(ctx context.Context, c *client.Client, task string, kind policyKind) *chaosEpisode {
	ep := &chaosEpisode{kind: kind}
	var rr *api.ResetResponse
	err := ep.retry(ctx, func() (err error) {
		rr, err = c.Reset(ctx, api.ResetRequest{Task: task, Checkpoint: json.RawMessage(`"auto"`)})
		return err
	})
	if err != nil {
		ep.err = "reset: " + err.Error()
		return ep
	}
	info := rr.Episodes[0]
	for i, cmd := range kind.steps() {
		n := info.K + i
		args, _ := json.Marshal(map[string]string{"command": cmd})
		req := api.StepRequest{ToolCall: &api.ToolCall{Name: "shell", Arguments: args}, Step: &n}
		var sr *api.StepResponse
		if err := ep.retry(ctx, func() (err error) { sr, err = c.Step(ctx, info.ID, req); return err }); err != nil {
			ep.failed("step", err)
			return ep
		}
		ep.recovered = max(ep.recovered, sr.Info.Recovered)
		if sr.Terminated {
			break
		}
	}
	var ev *api.EvaluateResponse
	if err := ep.retry(ctx, func() (err error) { ev, err = c.Evaluate(ctx, info.ID); return err }); err != nil {
		ep.failed("evaluate", err)
		return ep
	}
	ep.finished, ep.reward, ep.end = true, ev.Reward, ev.End
	ep.recovered = max(ep.recovered, ev.Recovered)
	ep.hit = ep.hit || ep.recovered > 0
	return ep
}

// retry calls fn until it answers other than a lost connection, a 5xx or
// a 429, for at most 3 minutes.
func (ep *chaosEpisode) retry(ctx context.Context, fn func() error) error {
	deadline := time.Now().Add(3 * time.Minute)
	for {
		err := fn()
		var ae *api.APIError
		switch {
		case err == nil:
			return nil
		case errors.As(err, &ae) && ae.Status == http.StatusTooManyRequests:
		case errors.As(err, &ae) && ae.Status < 500:
			return err
		default: // the server went away, or answered 5xx
			ep.hit = true
		}
		if time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(300 * time.Millisecond):
		}
	}
}

// failed records an episode that ended in an error answer.
func (ep *chaosEpisode) failed(what string, err error) {
	ep.err = what + ": " + err.Error()
	var ae *api.APIError
	if errors.As(err, &ae) && ae.Code == api.CodeSandboxLost {
		ep.hit = true
		reason, _ := ae.Details["reason"].(string)
		ep.end = &api.End{Attribution: "infrastructure", Reason: reason}
	}
}

// chaosReport is the run's table.
type chaosReport struct {
	From                       string         `json:"from"`
	Seconds                    int            `json:"seconds"`
	Killed, Frozen, Crashes    int            `json:"-"`
	Episodes, Hit, Recovered   int            `json:"-"`
	PolicyFailed, Wrong        int            `json:"-"`
	Infra                      map[string]int `json:"-"`
	Other                      []string       `json:"-"`
	HitDeterministic, HitRight int            `json:"-"`
	ByKind                     [3][3]int      `json:"-"` // [episodes, hit, recovered][kind]
}

func (r *chaosReport) fill(eps []*chaosEpisode) {
	for _, ep := range eps {
		r.Episodes++
		r.ByKind[0][ep.kind]++
		if ep.hit {
			r.ByKind[1][ep.kind]++
		}
		if ep.recovered > 0 {
			r.ByKind[2][ep.kind]++
		}
		if ep.recovered > 0 {
			r.Recovered++
		}
		if ep.hit {
			r.Hit++
		}
		switch {
		case ep.end != nil && ep.end.Attribution == "infrastructure":
			r.Infra[ep.end.Reason]++
			if len(r.Other) < 10 {
				r.Other = append(r.Other, clipTo(ep.err, 600))
			}
		case ep.end != nil && ep.end.Attribution == "policy":
			r.PolicyFailed++
		case !ep.finished && len(r.Other) < 10:
			r.Other = append(r.Other, clipTo(ep.err, 600))
		}
		if ep.finished && ep.reward != ep.kind.intended() {
			r.Wrong++
			if len(r.Other) < 10 {
				r.Other = append(r.Other, fmt.Sprintf("reward %v, intended %v (kind %d, recovered %d)", ep.reward, ep.kind.intended(), ep.kind, ep.recovered))
			}
		}
		if ep.hit && ep.kind != exhausts {
			r.HitDeterministic++
			if ep.finished && ep.reward == ep.kind.intended() {
				r.HitRight++
			}
		}
	}
}

func (r *chaosReport) print(w *os.File) {
	var infra []string
	for k, v := range r.Infra {
		infra = append(infra, fmt.Sprintf("%s %d", k, v))
	}
	sort.Strings(infra)
	share := 100.0
	if r.HitDeterministic > 0 {
		share = 100 * float64(r.HitRight) / float64(r.HitDeterministic)
	}
	fmt.Fprintf(w, "chaos bench (%s, %d s): faults: %d sandboxes killed, %d frozen 30 s, %d kill -9 of rbx serve\n", r.From, r.Seconds, r.Killed, r.Frozen, r.Crashes)
	fmt.Fprintf(w, "| episodes | hit by a fault | recovered | infrastructure-failed | policy-failed | wrong rewards | hit (deterministic) with the intended reward |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(w, "| %d | %d | %d | %d (%s) | %d | %d | %d of %d (%.1f %%) |\n", r.Episodes, r.Hit, r.Recovered, sum(r.Infra), orDash(strings.Join(infra, ", ")),
		r.PolicyFailed, r.Wrong, r.HitRight, r.HitDeterministic, share)
	fmt.Fprintf(w, "by policy (does the task / skips it / exhausts its processes): episodes %v, hit %v, recovered %v\n", r.ByKind[0], r.ByKind[1], r.ByKind[2])
	for _, o := range r.Other {
		fmt.Fprintf(w, "  - %s\n", o)
	}
}

func (r *chaosReport) judge(b *testing.B) {
	require.Zero(b, r.Wrong, "rewards that differ from the intended ones")
	require.NotZero(b, r.Hit, "no episode was hit: the injector did nothing")
	require.GreaterOrEqual(b, float64(r.HitRight), 0.95*float64(r.HitDeterministic), "episodes hit whose steps are deterministic, finished with the intended reward")
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

func clipTo(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
