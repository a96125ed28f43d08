package tbench

import (
	"fmt"
	"maps"
	"path/filepath"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/images"
	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// DefaultImage is the base of tasks that come without a Dockerfile.
const DefaultImage = "rbx/debian:bookworm"

// DefaultWorkdir is terminal-bench's working directory.
const DefaultWorkdir = "/app"

// Options tune a conversion.
type Options struct {
	// ID overrides the task id (default: the folder name).
	ID string
	// Aliases map base images to local ones (default images.DefaultAliases()).
	Aliases images.Aliases
	// CPUs is the sandbox's CPU limit (default 2: terminal-bench sets none,
	// and some tasks check that parallel code runs faster).
	CPUs float64
}

// Converted is a task folder turned into native form (not yet written).
type Converted struct {
	Source     *Source
	Task       *task.Task
	Trajectory *trajectory.Trajectory
	// Dockerfile is the rewritten Dockerfile ("" when the task has none and
	// runs on BaseImage directly); BaseImage the local image it builds on.
	Dockerfile string
	BaseImage  string
	// VerifyFiles are generated verifier files: name → content.
	VerifyFiles map[string]string
	// TestFiles are test files rbx rewrote (path under tests/ → content):
	// the test script and the scripts beside it, network lines replaced.
	TestFiles map[string]string
	// Replacements lists every replaced network command: the Dockerfile's
	// (by what the base image provides) and the test scripts'.
	Replacements []Replacement
	// Compose is what the task's docker-compose file asks of its
	// container, and what the import made of each (also in Warnings).
	Compose []ComposeRequest
	// Warnings are semantics the import could not keep exactly (reported,
	// never silent): an old-format task.yaml, `set -u` in the solution.
	Warnings []string
	// Extra are files of a task without Dockerfile that its environment
	// needs (copied into the workdir).
	Extra []string
}

// Convert reads a task folder and converts it. A task that needs the
// network to build or solve returns an *OfflineError (with the conversion,
// for reporting).
func Convert(dir string, o Options) (*Converted, error) {
	src, err := Read(dir)
	if err != nil {
		return nil, err
	}
	if o.Aliases == nil {
		o.Aliases = images.DefaultAliases()
	}
	if o.CPUs == 0 {
		o.CPUs = 2
	}
	id := o.ID
	if id == "" {
		id = importer.IDFromName(filepath.Base(filepath.Clean(dir)))
	}
	c := &Converted{Source: src, BaseImage: DefaultImage, VerifyFiles: map[string]string{}, TestFiles: map[string]string{},
		Warnings: append([]string(nil), src.Warnings...)}
	var problems []Problem
	workdir := DefaultWorkdir
	var copies []copyMap
	if src.Dockerfile != "" {
		df := rewriteDockerfile(src.DockerfileName, src.Dockerfile, o.Aliases)
		problems = append(problems, df.problems...)
		c.Dockerfile = df.text
		copies = df.copies
		c.Replacements = df.replacements
		if len(df.bases) > 0 {
			c.BaseImage = df.bases[len(df.bases)-1]
		}
		if df.workdir != "" {
			workdir = df.workdir
		}
	} else if src.Layout == LayoutTerminalBench {
		c.Extra = extraFiles(dir)
	}
	cmds, err := SplitScript(src.Solution)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, src.SolutionFile), err)
	}
	if len(cmds) == 0 {
		return nil, fmt.Errorf("%s: no commands", filepath.Join(dir, src.SolutionFile))
	}
	for _, cmd := range cmds {
		problems = append(problems, scanOffline(src.SolutionFile, cmd.Line, cmd.Text)...)
	}
	var warns []string
	c.Trajectory, warns = reference(id, src, cmds)
	c.Warnings = append(c.Warnings, warns...)
	c.Task = c.task(id, workdir, o)
	reqs, caps, err := readCompose(dir)
	if err != nil {
		return nil, err
	}
	c.Compose, c.Task.CapAdd = reqs, caps
	for _, r := range reqs {
		c.Warnings = append(c.Warnings, r.String())
	}
	problems = append(problems, c.rewriteTests()...)
	problems = append(problems, c.scanTestInvocations(workdir, copies)...)
	if len(problems) > 0 {
		return c, &OfflineError{Task: id, Problems: problems}
	}
	return c, nil
}

func (c *Converted) task(id, workdir string, o Options) *task.Task {
	src := c.Source
	tk := &task.Task{ID: id, Instruction: src.Instruction, Workdir: workdir,
		Limits: task.Limits{CPUs: o.CPUs, StepTimeout: task.Duration(10 * time.Minute)}}
	if src.AgentTimeout > 0 {
		tk.Limits.EpisodeTimeout = task.Duration(src.AgentTimeout)
	}
	tk.Verify = task.Verify{Files: map[string]string{"tests/": TestsDir + "/", "rbx-verifier/": filepathDir(VerifyScript) + "/"},
		Command: "bash " + VerifyScript}
	if src.TestTimeout > 0 {
		tk.Verify.Timeout = task.Duration(src.TestTimeout)
	}
	c.VerifyFiles["verify.sh"] = verifyScript(workdir, testScriptName(src), src.Layout)
	maps.Copy(c.VerifyFiles, standinFiles())
	if len(c.Extra) > 0 {
		tk.Files = map[string]string{}
		for _, f := range c.Extra {
			tk.Files["environment/"+f] = f
		}
	}
	return tk
}

func filepathDir(p string) string { return strings.TrimSuffix(filepath.Dir(p), "/") }
