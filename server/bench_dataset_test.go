package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/client"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/sandbox/docker/dockertest"
)

const (
	imgBusybox   = "rbx/busybox:latest"
	imgDebian    = "rbx/debian:bookworm"
	imgToolchain = "rbx/buildpack-deps:bookworm"
)

// BenchmarkIntegrationDataset measures `rbx serve` (the real binary, a
// subprocess) from outside on a generated dataset: the engine's own
// create+start+remove rate, then 10 busybox tasks (the setting of runs
// 1–15), 10 tasks over the three images and 1,000 tasks over the same
// (busybox, Debian and the toolchain image), each driven like a GRPO trainer
// (RBX_BENCH_ITERATIONS × 32 groups of 8 at checkpoint auto, 3 steps and
// an evaluation each). Extra serve flags: RBX_BENCH_SERVE_FLAGS (both
// settings), then RBX_BENCH_SERVE_FLAGS_10 or _1000. The table goes to
// stdout, as JSON to $RBX_BENCH_OUT too. Run with -benchtime 1x.
func BenchmarkIntegrationDataset(b *testing.B) {
	rt := dockertest.Runtime(b, imgBusybox, imgDebian)
	ctx := context.Background()
	bin, from := buildServeBinary(b)
	env := &datasetEnv{cli: rt.Client(), bin: bin, from: from, maxLive: envInt(b, "RBX_BENCH_MAX_LIVE", 768),
		trainer: trainer{Iterations: envInt(b, "RBX_BENCH_ITERATIONS", 5), Groups: 32, Group: 8, Steps: 3,
			Clients: envInt(b, "RBX_BENCH_CLIENTS", 32), Seed: int64(envInt(b, "RBX_BENCH_SEED", 1))}}
	images, notes := largeImages(ctx, env.cli)
	var rep datasetReport
	var errs []string
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		rep, errs = env.run(ctx, b, images, notes)
	}
	b.StopTimer()
	printDataset(rep)
	if out := os.Getenv("RBX_BENCH_OUT"); out != "" {
		data, err := json.MarshalIndent(rep, "", "  ")
		require.NoError(b, err)
		require.NoError(b, os.WriteFile(out, append(data, '\n'), 0o644), "RBX_BENCH_OUT")
	}
	require.Empty(b, errs, "settings that failed")
	for _, s := range rep.Settings {
		require.Zero(b, s.Left, "%s: sandboxes left after SIGTERM", s.Name)
	}
}

// run measures the engine baseline and both settings; a setting that
// fails keeps its partial figures, and its error is returned.
func (env *datasetEnv) run(ctx context.Context, b *testing.B, large, notes []string) (datasetReport, []string) {
	rep := datasetReport{Date: time.Now().UTC().Format(time.RFC3339), Server: env.from, Trainer: env.trainer, Notes: notes}
	eng, err := measureEngine(ctx, b, env.cli, imgBusybox, 40, 8)
	require.NoError(b, err)
	rep.Engine = eng
	var errs []string
	figs := map[string]*settingFigures{}
	// The ratio is judged like for like: 10 tasks over the images of the
	// 1,000 (a toolchain sandbox costs more than a busybox one whatever
	// the dataset). The busybox-only setting of runs 1–15 stays beside it.
	for _, s := range pickSettings(b, []setting{
		{key: "10-busybox", name: "10 busybox tasks", tasks: 10, images: []string{imgBusybox}, flags: serveFlags("10")},
		{key: "10", name: "10 tasks", tasks: 10, images: large, flags: serveFlags("10")},
		{key: "1000", name: "1000 tasks", tasks: 1000, images: large, flags: serveFlags("1000")},
	}) {
		f, err := env.runSetting(ctx, b, s)
		if err != nil {
			f.Note = err.Error()
			errs = append(errs, s.name+": "+err.Error())
		}
		// A line per setting as it ends: a later setting's hang keeps it.
		fmt.Fprintf(os.Stderr, "dataset bench: %s: %d episodes, %.2f episodes/s, peak live %d, peak shims + rbx %.0f MiB, %.2f creates/episode, err: %v\n",
			s.name, f.Episodes, f.EpisodesPerS, f.PeakLive, f.PeakMemMiB, f.CreatesPerEp, err)
		rep.Settings = append(rep.Settings, f)
		figs[s.key] = &f
	}
	if figs["10"] != nil && figs["1000"] != nil {
		rep.Targets = judge(eng, figs["10"], figs["1000"], figs["10-busybox"])
	}
	return rep, errs
}

// pickSettings keeps the settings RBX_BENCH_SETTINGS names by key
// ("10-busybox", "10", "1000", comma-separated; default all): comparing
// two servers on one setting, the targets (which need 10 and 1000) are
// not judged.
func pickSettings(b *testing.B, all []setting) []setting {
	want := os.Getenv("RBX_BENCH_SETTINGS")
	if want == "" {
		return all
	}
	var out []setting
	for _, name := range strings.Split(want, ",") {
		found := false
		for _, s := range all {
			if s.key == strings.TrimSpace(name) {
				out, found = append(out, s), true
			}
		}
		if !found {
			b.Fatalf("RBX_BENCH_SETTINGS=%q: %q is not a setting (10-busybox, 10, 1000)", want, name)
		}
	}
	return out
}

// largeImages is the 1,000-task setting's images: the toolchain image
// only when present (its build is slow), with a note when it is not.
func largeImages(ctx context.Context, cli *client.Client) ([]string, []string) {
	if _, err := cli.ImageInspect(ctx, imgToolchain); err != nil {
		note := fmt.Sprintf("%s is missing (build it: rbx images build %s): the 1000-task setting runs on busybox and debian only", imgToolchain, imgToolchain)
		fmt.Println("note: " + note)
		return []string{imgBusybox, imgDebian}, []string{note}
	}
	return []string{imgBusybox, imgDebian, imgToolchain}, nil
}

// serveFlags is RBX_BENCH_SERVE_FLAGS then RBX_BENCH_SERVE_FLAGS_<name>,
// split on spaces (a later flag wins).
func serveFlags(name string) []string {
	return append(strings.Fields(os.Getenv("RBX_BENCH_SERVE_FLAGS")), strings.Fields(os.Getenv("RBX_BENCH_SERVE_FLAGS_"+name))...)
}

// printDataset prints the run: the engine line, the table, the targets.
func printDataset(rep datasetReport) {
	t := rep.Trainer
	fmt.Printf("\nrbx serve dataset benchmark, %s, server %s: %d iterations × %d groups × %d at checkpoint auto, %d steps + evaluate, %d clients, seed %d\n",
		rep.Date, rep.Server, t.Iterations, t.Groups, t.Group, t.Steps, t.Clients, t.Seed)
	e := rep.Engine
	fmt.Printf("engine baseline: create + start + remove %s, %d at a time: %d containers in %.1f s = %.2f containers/s\n\n",
		e.Image, e.Width, e.Containers, e.Seconds, e.PerSecond)
	writeTable(os.Stdout, rep.Settings)
	fmt.Println()
	writeTargets(os.Stdout, rep.Targets)
	for _, n := range rep.Notes {
		fmt.Println("note: " + n)
	}
	for _, s := range rep.Settings {
		if s.Note != "" {
			fmt.Printf("%s failed: %s\n", s.Name, s.Note)
		}
	}
}
