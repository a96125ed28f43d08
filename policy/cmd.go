package policy

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/trajectory"
	"github.com/rbx-sandbox/rbx/trajectory/tools"
)

// Cmd runs an external program per episode and talks to it in JSON lines.
// rbx writes one object per line to its stdin:
//
//	{"type":"episode","task":ID,"instruction":...,"trajectory":ID,"k":K,"steps_total":T,"workdir":DIR,
//	 "actions":[...]?, "intervention":{"rubric":[...],"score":S,"budget":B}?}
//	{"type":"observation","step":N,"output":...,"exit_code":C,"timed_out":B,"error":...}
//	{"type":"error","error":...}   (its last line was not a valid action; send another)
//
// and reads one action per line from its stdout, in the trajectory format
// ({"action":"shell","command":"ls"}, {"action":"write_file","path":...}),
// or {"action":"submit"} to end the episode; end of output also ends it.
// Its stderr goes to Stderr.
type Cmd struct {
	Argv []string
	// Stderr receives the program's stderr (nil: discarded).
	Stderr io.Writer
}

// Name returns "cmd".
func (c Cmd) Name() string { return "cmd" }

// Start runs the program and sends it the episode line.
func (c Cmd) Start(ctx context.Context, ep Episode) (Agent, error) {
	if len(c.Argv) == 0 {
		return nil, errors.New("cmd policy: no program given")
	}
	p := exec.Command(c.Argv[0], c.Argv[1:]...)
	p.Stderr = c.Stderr
	p.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // so Close can kill what it started
	in, err := p.StdinPipe()
	if err != nil {
		return nil, fmt.Errorf("cmd policy: %w", err)
	}
	out, err := p.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("cmd policy: %w", err)
	}
	if err := p.Start(); err != nil {
		return nil, fmt.Errorf("cmd policy: start %s: %w", c.Argv[0], err)
	}
	a := &cmdAgent{p: p, in: in, lines: make(chan string), done: make(chan struct{}), stop: make(chan struct{})}
	go a.read(out)
	hello := map[string]any{"type": "episode", "task": ep.Task.ID, "instruction": ep.Task.Instruction,
		"trajectory": ep.Trajectory.ID, "k": ep.K, "steps_total": ep.Trajectory.Len(), "workdir": provision.Spec(ep.Task).Workdir}
	if len(ep.Actions) > 0 {
		hello["actions"] = ep.Actions
	}
	if ep.Intervention != nil {
		hello["intervention"] = ep.Intervention
	}
	if err := a.send(hello); err != nil {
		return nil, errors.Join(err, a.Close())
	}
	return a, nil
}

type cmdAgent struct {
	p     *exec.Cmd
	in    io.WriteCloser
	lines chan string
	done  chan struct{} // closed when stdout ends
	stop  chan struct{} // closed by Close: the reader stops handing lines over
	line  int
	sent  int // observations sent: the next one's step
	once  sync.Once
}

// observationLine is an observation on the program's stdin. Its shape is
// the protocol's: output and exit_code are always present.
type observationLine struct {
	Type     string `json:"type"`
	Step     int    `json:"step"` // counts the actions of the episode, from 0
	Output   string `json:"output"`
	ExitCode int    `json:"exit_code"`
	TimedOut bool   `json:"timed_out,omitempty"`
	Error    string `json:"error,omitempty"`
}

func (a *cmdAgent) read(out io.Reader) {
	defer close(a.done)
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	for sc.Scan() {
		select {
		case a.lines <- sc.Text():
		case <-a.stop:
			return
		}
	}
}

func (a *cmdAgent) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("cmd policy: write to program: %w", err)
	}
	return nil
}

func (a *cmdAgent) Act(ctx context.Context, obs *trajectory.Observation) (trajectory.Step, bool, error) {
	if obs != nil {
		line := observationLine{Type: "observation", Step: a.sent, Output: obs.Output, TimedOut: obs.TimedOut, Error: obs.Error}
		if obs.ExitCode != nil {
			line.ExitCode = *obs.ExitCode
		}
		a.sent++
		if err := a.send(line); err != nil {
			return trajectory.Step{}, false, err
		}
	}
	for {
		var text string
		select {
		case <-ctx.Done():
			return trajectory.Step{}, false, ctx.Err()
		case <-a.done:
			return trajectory.Step{}, true, nil
		case text = <-a.lines:
		}
		a.line++
		if strings.TrimSpace(text) == "" {
			continue
		}
		s, done, err := parseLine(text)
		if err == nil {
			return s, done, nil
		}
		if err := a.send(map[string]string{"type": "error", "error": fmt.Sprintf("line %d: %v", a.line, err)}); err != nil {
			return trajectory.Step{}, false, err
		}
	}
}

// parseLine reads {"action": KIND, fields...} or {"action": "submit"}.
func parseLine(text string) (trajectory.Step, bool, error) {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal([]byte(text), &fields); err != nil {
		return trajectory.Step{}, false, fmt.Errorf("%w: expected a JSON object: %s", tools.ErrMalformed, truncate(text, 200))
	}
	var kind string
	if err := json.Unmarshal(fields["action"], &kind); err != nil {
		return trajectory.Step{}, false, fmt.Errorf(`%w: expected "action": a tool name or "submit"`, tools.ErrMalformed)
	}
	if kind == SubmitTool {
		return trajectory.Step{}, true, nil
	}
	delete(fields, "action")
	args, _ := json.Marshal(fields)
	s, err := tools.Parse(kind, args)
	return s, false, err
}

// Close closes the program's stdin, gives it a moment to exit, then kills
// its process group. It may be called more than once.
func (a *cmdAgent) Close() error {
	a.once.Do(a.stopProgram)
	return nil
}

func (a *cmdAgent) stopProgram() {
	_ = a.in.Close()
	close(a.stop)
	exited := make(chan error, 1)
	go func() { exited <- a.p.Wait() }()
	select {
	case <-exited:
	case <-time.After(2 * time.Second):
		_ = syscall.Kill(-a.p.Process.Pid, syscall.SIGKILL)
		<-exited
	}
}
