package server_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/internal/testenv"
	"github.com/rbx-sandbox/rbx/pool"
	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/sandbox/docker"
	"github.com/rbx-sandbox/rbx/sandbox/local"
	"github.com/rbx-sandbox/rbx/server"
)

// benchRuntime is RBX_BENCH_RUNTIME (docker or local); by default docker
// when an engine answers, else local.
func benchRuntime(b *testing.B) sandbox.Runtime {
	b.Helper()
	name := os.Getenv("RBX_BENCH_RUNTIME")
	if name == "local" || (name == "" && docker.Available(context.Background()) != nil) {
		rt, err := local.New()
		require.NoError(b, err)
		return rt
	}
	if err := docker.Available(context.Background()); err != nil {
		testenv.Missing(b, "RBX_BENCH_RUNTIME=docker but no Docker engine answers: %v", err)
	}
	rt, err := docker.New()
	require.NoError(b, err)
	bl, err := images.NewBuilder(rt.Client())
	require.NoError(b, err)
	_, err = bl.Ensure(context.Background(), "rbx/busybox:latest")
	require.NoError(b, err)
	return rt
}

// loadStats collects latencies per call, the 5xx count and every episode
// that did not end in a passing evaluation.
type loadStats struct {
	mu       sync.Mutex
	calls    map[string][]time.Duration
	exec     []time.Duration // the sandbox's own time per step
	overhead []time.Duration // client round trip minus exec, per step
	serverOH []time.Duration // server-side step time minus exec
	status5  int
	started  int
	episodes int      // evaluated with success
	failures []string // why each other episode failed
}

// fail records why an episode did not succeed.
func (s *loadStats) fail(format string, args ...any) {
	s.mu.Lock()
	s.failures = append(s.failures, fmt.Sprintf(format, args...))
	s.mu.Unlock()
}

func (s *loadStats) add(call string, d time.Duration) {
	s.mu.Lock()
	s.calls[call] = append(s.calls[call], d)
	s.mu.Unlock()
}

func q(d []time.Duration, p float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(p*float64(len(s)-1)+0.5)]
}

func msOf(d time.Duration) float64 { return float64(d) / 1e6 }

// BenchmarkIntegrationServeLoad: 32 concurrent clients each loop reset →
// 5 steps → evaluate against a loopback server for RBX_BENCH_DURATION
// (default 60s): zero 5xx, p50/p99 per call, the server's overhead per
// step over the sandbox's own exec time (both measured in this run), and
// no sandbox left afterwards. Run with -benchtime 1x.
func BenchmarkIntegrationServeLoad(b *testing.B) {
	dur := 60 * time.Second
	if v := os.Getenv("RBX_BENCH_DURATION"); v != "" {
		d, err := time.ParseDuration(v)
		require.NoError(b, err)
		dur = d
	}
	const clients = 32
	rt := benchRuntime(b)
	e := runShPath(b)
	rp, err := replayer.New(replayer.WithExcerpt(64 << 10))
	require.NoError(b, err)
	rs, err := reset.New(rt, rp, reset.WithPoolOptions(pool.WithSize(clients), pool.WithConcurrency(8)))
	require.NoError(b, err)
	eng, err := curriculum.New()
	require.NoError(b, err)
	srv, err := server.New(context.Background(), rs, rp, eng, []server.Entry{e})
	require.NoError(b, err)
	hs := newLoopback(b, srv.Handler())
	time.Sleep(2 * time.Second) // let the pool fill before the clock starts
	st := &loadStats{calls: map[string][]time.Duration{}}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		deadline := time.Now().Add(dur)
		var wg sync.WaitGroup
		for c := 0; c < clients; c++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for time.Now().Before(deadline) {
					loadEpisode(b, hs, e, st)
				}
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	hs.close()
	require.NoError(b, srv.Close(context.Background()))
	require.NoError(b, rs.Close(context.Background()))
	left, err := rt.List(context.Background(), map[string]string{sandbox.LabelOwner: sandbox.Owner})
	require.NoError(b, err)
	report(st, rt.Name(), clients, dur, len(left))
	require.Zero(b, st.status5, "5xx answers")
	require.Empty(b, left, "sandboxes left after the load")
	// Every episode replays the reference's last steps: each must pass.
	require.Positive(b, st.episodes, "no episode completed")
	require.Empty(b, st.failures, "episodes that did not evaluate to success")
	require.Equal(b, st.started, st.episodes, "every episode started evaluates to success")
}

func report(st *loadStats, rt string, clients int, dur time.Duration, left int) {
	fmt.Printf("\nrbx serve load: %s runtime, %d clients, %v, %d of %d episodes succeeded (%.1f/s), 5xx: %d, sandboxes left: %d\n",
		rt, clients, dur, st.episodes, st.started, float64(st.episodes)/dur.Seconds(), st.status5, left)
	fmt.Printf("%-34s %7s %9s %9s\n", "call", "n", "p50 ms", "p99 ms")
	for _, c := range []string{"reset", "step", "evaluate"} {
		fmt.Printf("%-34s %7d %9.2f %9.2f\n", c, len(st.calls[c]), msOf(q(st.calls[c], .5)), msOf(q(st.calls[c], .99)))
	}
	fmt.Printf("%-34s %7d %9.2f %9.2f\n", "step: sandbox exec (server-timed)", len(st.exec), msOf(q(st.exec, .5)), msOf(q(st.exec, .99)))
	fmt.Printf("%-34s %7d %9.2f %9.2f\n", "step overhead: round trip - exec", len(st.overhead), msOf(q(st.overhead, .5)), msOf(q(st.overhead, .99)))
	fmt.Printf("%-34s %7d %9.2f %9.2f\n", "step overhead: in server - exec", len(st.serverOH), msOf(q(st.serverOH, .5)), msOf(q(st.serverOH, .99)))
}

// loadEpisode is reset at T-5 → the 5 reference steps → evaluate.
func loadEpisode(b *testing.B, hs *loopback, e server.Entry, st *loadStats) {
	k := e.Ref.Len() - 5
	st.mu.Lock()
	st.started++
	st.mu.Unlock()
	var rr server.ResetResponse
	if !hs.post(st, "reset", "/v1/reset", map[string]any{"task": e.Task.ID, "checkpoint": k}, &rr) {
		return
	}
	id := rr.Episodes[0].ID
	for i := k; i < e.Ref.Len(); i++ {
		var sr server.StepResponse
		start := time.Now()
		if !hs.post(st, "step", "/v1/episodes/"+id+"/step", map[string]any{"tool_call": refCall(b, e.Ref, i)}, &sr) {
			return
		}
		rtt := time.Since(start)
		exec := time.Duration(sr.Info.ExecMS * 1e6)
		st.mu.Lock()
		st.exec = append(st.exec, exec)
		st.overhead = append(st.overhead, rtt-exec)
		st.serverOH = append(st.serverOH, time.Duration(sr.Info.ServerMS*1e6)-exec)
		st.mu.Unlock()
	}
	var er server.EvaluateResponse
	if !hs.post(st, "evaluate", "/v1/episodes/"+id+"/evaluate", nil, &er) {
		return
	}
	if !er.Success {
		st.fail("evaluate %s: no success: %+v", id, er)
		return
	}
	st.mu.Lock()
	st.episodes++
	st.mu.Unlock()
}

// loopback is an http.Server on 127.0.0.1 with a pooled client.
type loopback struct {
	url  string
	srv  *http.Server
	cli  *http.Client
	done chan struct{}
}

func newLoopback(b testing.TB, h http.Handler) *loopback {
	ln, err := (&net0{}).listen()
	require.NoError(b, err)
	l := &loopback{url: "http://" + ln.Addr().String(), srv: &http.Server{Handler: h}, done: make(chan struct{}),
		cli: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 10 * time.Minute}}
	go func() { _ = l.srv.Serve(ln); close(l.done) }()
	return l
}

func (l *loopback) close() { _ = l.srv.Close(); <-l.done }

// post sends one call and times it; false, recorded as the episode's
// failure, when it did not answer 200 with a body that decodes.
func (l *loopback) post(st *loadStats, call, path string, body, out any) bool {
	var rd io.Reader = http.NoBody
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	start := time.Now()
	resp, err := l.cli.Post(l.url+path, "application/json", rd)
	if err != nil {
		st.mu.Lock()
		st.status5++ // a dropped connection counts as a server failure
		st.mu.Unlock()
		st.fail("%s: %v", call, err)
		return false
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	st.add(call, time.Since(start))
	if resp.StatusCode >= 500 {
		st.mu.Lock()
		st.status5++
		st.mu.Unlock()
		fmt.Printf("%s: %d %s\n", call, resp.StatusCode, raw)
	}
	if resp.StatusCode != http.StatusOK {
		st.fail("%s %s: %d %.300s", call, path, resp.StatusCode, raw)
		return false
	}
	if err := json.Unmarshal(raw, out); err != nil {
		st.fail("%s %s: decode: %v: %.300s", call, path, err, raw)
		return false
	}
	return true
}
