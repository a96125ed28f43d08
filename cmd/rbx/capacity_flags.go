package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/rbx-sandbox/rbx/capacity"
	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/recycle"
	"github.com/rbx-sandbox/rbx/reset"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// capacityFlags bound what a command holds: the one budget of live
// sandboxes (serve, probe, intervene, prefilter), and for serve how the
// warm ones follow demand.
type capacityFlags struct {
	max  int
	wait time.Duration
	ops  int
	// serve only
	warm    int
	prewarm []string
	recycle string
}

func (c *capacityFlags) register(f *pflag.FlagSet) {
	f.IntVar(&c.max, "max-sandboxes", 0, "the budget of live sandboxes, whatever they are for (in use, warm, staged, scratch, being created or removed); 0: what the machine's memory affords at the tasks' memory limits")
	f.DurationVar(&c.wait, "capacity-wait", 2*time.Minute, "how long a reset waits for room in the budget before it fails (rbx serve: 429 capacity)")
	f.IntVar(&c.ops, "engine-ops", 0, "container creations and removals run at once, machine-wide; 0: two per core")
}

// registerServe adds serve's demand and recycling flags.
func (c *capacityFlags) registerServe(f *pflag.FlagSet) {
	c.register(f)
	f.IntVar(&c.warm, "warm", -1, "idle sandboxes kept in all (warm and staged), split between the sandbox classes by demand; -1: as many as the budget")
	f.StringSliceVar(&c.prewarm, "prewarm", nil, "task ids whose sandbox classes are warmed at start-up (\"all\": every task's); otherwise no sandbox exists before the first reset")
	f.StringVar(&c.recycle, "recycle", "auto", "return the sandboxes of ended episodes to their fresh state in place where the runtime can prove it and it is cheaper than a fresh one: auto, on (Kubernetes too, whose nodes must hold the agent image: docs/kubernetes.md) or off (docs/recycling.md)")
}

func (c *capacityFlags) validate() error {
	switch {
	case c.max < 0:
		return usageError("--max-sandboxes %d: expected ≥ 0 (0: derived from the machine's memory)", c.max)
	case c.wait <= 0:
		return usageError("--capacity-wait %v: expected > 0", c.wait)
	case c.ops < 0:
		return usageError("--engine-ops %d: expected ≥ 1, or 0 for two per core", c.ops)
	case c.warm < -1:
		return usageError("--warm %d: expected ≥ 0, or -1 for the budget", c.warm)
	case c.recycle != "" && c.recycle != "auto" && c.recycle != "on" && c.recycle != "off":
		return usageError("--recycle %q: expected auto, on or off", c.recycle)
	}
	return nil
}

// budget is the command's budget: --max-sandboxes, or what the machine's
// memory affords when every sandbox may reach the largest memory limit of
// tasks; it says which on errOut.
func (c *capacityFlags) budget(errOut io.Writer, cmd string, tasks []*task.Task) (*capacity.Budget, error) {
	if err := c.validate(); err != nil {
		return nil, err
	}
	n, why := c.max, "--max-sandboxes"
	if n == 0 {
		mem, err := capacity.MemTotal()
		if err != nil {
			return nil, fmt.Errorf("derive --max-sandboxes: %w", err)
		}
		per := int64(0)
		for _, tk := range tasks {
			per = max(per, provision.Spec(tk).Limits.MemoryBytes)
		}
		if per == 0 {
			per = provision.Spec(&task.Task{}).Limits.MemoryBytes
		}
		n = capacity.Default(mem, per)
		why = fmt.Sprintf("%.0f%% of %.1f GiB of memory at %d MiB per sandbox (the tasks' largest memory limit); --max-sandboxes sets it",
			capacity.Share*100, float64(mem)/(1<<30), per>>20)
	}
	fmt.Fprintf(errOut, "rbx %s: budget of %d live sandboxes (%s)\n", cmd, n, why)
	b, err := capacity.New(n)
	if err != nil || c.ops == 0 {
		return b, err
	}
	if err := b.SetEngineOps(c.ops); err != nil {
		return nil, usageError("--engine-ops: %v", err)
	}
	return b, nil
}

// resetOptions are the resetter's options for the budget b.
func (c *capacityFlags) resetOptions(b *capacity.Budget) []reset.Option {
	return []reset.Option{reset.WithBudget(b), reset.WithCapacityWait(c.wait)}
}

// serveOptions adds demand-driven warming: --warm in all, at most
// classMax per class.
func (c *capacityFlags) serveOptions(b *capacity.Budget, classMax int) []reset.Option {
	warm := c.warm
	if warm < 0 {
		warm = b.Max()
	}
	return append(c.resetOptions(b), reset.WithWarm(warm), reset.WithClassMax(classMax), reset.WithStageAfter(2))
}

// findAgent sets the runtime's recycling agent for --recycle auto, or says
// on errOut why recycling is off.
func (c *capacityFlags) findAgent(errOut io.Writer, rt *runtimeFlags) {
	if c.recycle == "off" {
		return
	}
	path, err := recycle.FindAgent()
	if err != nil {
		fmt.Fprintf(errOut, "rbx serve: recycling off: %v\n", err)
		return
	}
	rt.agent = path
	// A pod can only get the agent from an image the nodes hold, which rbx
	// cannot check: on Kubernetes recycling is asked for by name.
	rt.agentInPods = c.recycle == "on"
}

// recycling reports whether rt recycles, saying so on errOut.
func (c *capacityFlags) recycling(errOut io.Writer, rt sandbox.Runtime, agent string) bool {
	switch {
	case c.recycle == "off":
		fmt.Fprintln(errOut, "rbx serve: recycling off (--recycle off): every ended episode's sandbox is removed")
		return false
	case agent == "":
		return false // findAgent said why
	case c.recycle == "auto" && rt.Name() == "kubernetes":
		fmt.Fprintf(errOut, "rbx serve: recycling off: on kubernetes the pods need the agent image %s on the nodes (rbx images build %s, then load or push it: docs/kubernetes.md); --recycle on turns recycling on\n",
			agentImageOf(agent), recycle.AgentImageRepo)
		return false
	case !sandbox.FeaturesOf(rt).Recycle:
		fmt.Fprintf(errOut, "rbx serve: recycling off: the %s runtime cannot prove a sandbox fresh (docs/recycling.md)\n", rt.Name())
		return false
	}
	fmt.Fprintf(errOut, "rbx serve: recycling sandboxes in place where it is cheaper than a fresh one (agent %s)\n", agent)
	return true
}

// agentImageOf names the agent image of the binary at path ("rbx/agent:…"
// when it cannot be read).
func agentImageOf(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return recycle.AgentImageRepo + ":…"
	}
	return recycle.AgentImageRef(data)
}
