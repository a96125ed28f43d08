package tbench

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
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
	// Replacements are the Dockerfile commands that needed the network,
	// replaced by what the base image provides (each with its line).
	Replacements []Replacement
	// Extra are files of a task without Dockerfile that its environment
	// needs (copied into the workdir).
	Extra []string
}

var setErrexit = regexp.MustCompile(`^set\s+(-[a-zA-Z]*e[a-zA-Z]*|-o\s+errexit)\b`)

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
	c := &Converted{Source: src, BaseImage: DefaultImage, VerifyFiles: map[string]string{}}
	var problems []Problem
	workdir := DefaultWorkdir
	if src.Dockerfile != "" {
		df := rewriteDockerfile(src.DockerfileName, src.Dockerfile, o.Aliases)
		problems = append(problems, df.problems...)
		c.Dockerfile = df.text
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
	c.Trajectory = reference(id, src, cmds)
	c.Task = c.task(id, workdir, o)
	if !usesPytest(src.TestScript) {
		problems = append(problems, scanOffline(src.TestScriptName, 1, src.TestScript)...)
	}
	if len(problems) > 0 {
		return c, &OfflineError{Task: id, Problems: problems}
	}
	return c, nil
}

// reference is the solution as a trajectory: one shell step per top-level
// command. After `set -e` every step must exit 0, as the script would stop.
func reference(id string, src *Source, cmds []Command) *trajectory.Trajectory {
	t := &trajectory.Trajectory{ID: id + "-ref", Task: "task.json"}
	if src.Instruction != "" {
		raw, _ := json.Marshal(map[string]string{"role": "user", "content": src.Instruction})
		t.Messages = []json.RawMessage{raw}
	}
	errexit := false
	for _, c := range cmds {
		s := trajectory.Step{Action: trajectory.KindShell, Command: c.Text}
		if errexit {
			zero := 0
			s.Observation = &trajectory.Observation{ExitCode: &zero}
			s.Compare = "ignore"
		}
		if setErrexit.MatchString(c.Text) {
			errexit = true
		}
		t.Steps = append(t.Steps, s)
	}
	return t
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
	if usesPytest(src.TestScript) {
		c.VerifyFiles["verify.sh"] = pytestScript(workdir, pytestTargets(src.TestScript))
	} else {
		c.VerifyFiles["verify.sh"] = scriptRunner(workdir, "run-tests.sh")
		c.VerifyFiles["run-tests.sh"] = src.TestScript
	}
	if len(c.Extra) > 0 {
		tk.Files = map[string]string{}
		for _, f := range c.Extra {
			tk.Files["environment/"+f] = f
		}
	}
	return tk
}

func filepathDir(p string) string { return strings.TrimSuffix(filepath.Dir(p), "/") }
