package prefilter

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/rbx-sandbox/rbx/reason"
	"github.com/rbx-sandbox/rbx/replayer"
)

// ReportVersion is the version of the report format written by WriteReport.
const ReportVersion = 1

// Report is the outcome of a prefilter run: one Result per trajectory (or
// per document that failed to parse), in discovery order.
type Report struct {
	Version     int           `json:"version"`
	Started     time.Time     `json:"started"`
	Duration    time.Duration `json:"duration_ns"`
	Repeats     int           `json:"repeats"`
	Concurrency int           `json:"concurrency"`
	// Interrupted is set when the run was cancelled: interrupted results
	// are judged again by --resume.
	Interrupted bool          `json:"interrupted,omitempty"`
	Error       string        `json:"error,omitempty"`
	Summary     Summary       `json:"summary"`
	Results     []Result      `json:"trajectories"`
	Pools       []PoolSummary `json:"pools,omitempty"`
}

// Summary counts verdicts.
type Summary struct {
	Total     int `json:"total"`
	Kept      int `json:"kept"`
	Rejected  int `json:"rejected"`
	Undecided int `json:"undecided"`
	// Interrupted counts the trajectories a cancellation left unjudged.
	Interrupted int                   `json:"interrupted"`
	ByReason    map[reason.Reason]int `json:"by_reason"`
	// Resumed counts results taken from an earlier report.
	Resumed int `json:"resumed,omitempty"`
}

// PoolSummary is what a task's warm pool did.
type PoolSummary struct {
	Task      string `json:"task"`
	Size      int    `json:"size"`
	Created   int64  `json:"created"`
	Discarded int64  `json:"discarded"`
	Failed    int64  `json:"failed"`
}

// Result is the verdict on one trajectory.
type Result struct {
	Key
	Task     string `json:"task,omitempty"`
	TaskFile string `json:"task_file,omitempty"`
	// T is the number of steps.
	T      int           `json:"steps_total"`
	Status Status        `json:"status"`
	Reason reason.Reason `json:"reason,omitempty"`
	// Detail is a one-line human explanation of the verdict.
	Detail string `json:"detail,omitempty"`
	// Failure is the first failing repeat's failure.
	Failure *Failure `json:"failure,omitempty"`
	// Passed counts the repeats that passed, out of len(Repeats).
	Passed  int      `json:"passed"`
	Repeats []Repeat `json:"repeats,omitempty"`
	// Deepest is the deepest checkpoint any repeat reached (T when kept).
	Deepest int `json:"deepest_checkpoint"`
	// Steps holds per-step median timings over the repeats that ran the step.
	Steps []StepStat `json:"steps,omitempty"`
	// Volatile lists the steps the trajectory marks volatile;
	// Nondeterministic those whose normalised output differed across repeats.
	Volatile         []int `json:"volatile_steps,omitempty"`
	Nondeterministic []int `json:"nondeterministic_steps,omitempty"`
	// Pins are the observations of a kept trajectory's verified runs,
	// written into its steps by WriteKept (also for a resumed verdict).
	Pins []Pin `json:"pins,omitempty"`
	// Duration is the median wall time of one repeat (reset, replay, verify).
	Duration time.Duration `json:"median_repeat_ns"`
	// Resumed is set when the verdict was taken from an earlier report.
	Resumed bool `json:"resumed,omitempty"`
}

// Repeat is one end-to-end replay and verification in a fresh sandbox.
type Repeat struct {
	Passed  bool          `json:"passed"`
	Reason  reason.Reason `json:"reason,omitempty"`
	Failure *Failure      `json:"failure,omitempty"`
	// Reached counts the steps that replayed successfully.
	Reached  int           `json:"reached"`
	Duration time.Duration `json:"duration_ns"`

	steps     []stepRun
	cancelled bool
}

// stepRun is what one repeat observed of one step.
type stepRun struct {
	dur      time.Duration
	output   string
	exitCode int
	digests  *replayer.Digests
}

// Failure locates a failed repeat: the step (absent for verifier and
// infrastructure failures), expected and actual values, and an output
// excerpt.
type Failure struct {
	Step     *int   `json:"step,omitempty"`
	Action   string `json:"action,omitempty"`
	Summary  string `json:"summary,omitempty"`
	Expected string `json:"expected,omitempty"`
	Got      string `json:"got,omitempty"`
	Output   string `json:"output,omitempty"`
	// Failing names the failed tests (or the packages the offline
	// stand-ins found missing) that a verifier's whole output reports;
	// Output keeps only its tail.
	Failing []string `json:"failing,omitempty"`
	// Network is the verifier output's sign that the tests tried to reach
	// the network (see NetworkEvidence).
	Network string `json:"network,omitempty"`
	Message string `json:"message"`
}

// StepStat is one step's median duration over the repeats that ran it.
type StepStat struct {
	Index  int           `json:"step"`
	Action string        `json:"action"`
	Median time.Duration `json:"median_ns"`
	Runs   int           `json:"runs"`
}

// legacyInfra is what reports before the shared vocabulary (docs/reasons.md)
// called reason.Infra; a resumed run judges such results again too.
const legacyInfra reason.Reason = "infra_error"

// Decided reports whether r is a verdict a resumed run may keep: kept, or
// rejected for a reason that is the trajectory's (infra and session_lost are not).
func (r Result) Decided() bool {
	return r.Status == StatusKept || r.Status == StatusRejected && !r.Reason.IsInfra() && r.Reason != legacyInfra
}

// summarise fills rep.Summary from rep.Results.
func (rep *Report) summarise() {
	s := Summary{Total: len(rep.Results), ByReason: map[reason.Reason]int{}}
	for _, r := range rep.Results {
		switch r.Status {
		case StatusKept:
			s.Kept++
		case StatusRejected:
			s.Rejected++
			s.ByReason[r.Reason]++
		case StatusInterrupted:
			s.Interrupted++
		default:
			s.Undecided++
		}
		if r.Resumed {
			s.Resumed++
		}
	}
	rep.Summary = s
}

// ReadReport loads a report written by WriteReport.
func ReadReport(path string) (*Report, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read report: %w", err)
	}
	var rep Report
	if err := json.Unmarshal(data, &rep); err != nil {
		return nil, fmt.Errorf("read report %s: %w", path, err)
	}
	if rep.Version != ReportVersion {
		return nil, fmt.Errorf("read report %s: version %d: expected %d", path, rep.Version, ReportVersion)
	}
	return &rep, nil
}

// WriteReport writes rep as indented JSON to path, through a temporary file
// and a rename so that an interrupted write never leaves half a report.
func WriteReport(path string, rep *Report) (err error) {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".prefilter-report-*")
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	defer func() {
		if err != nil {
			_ = os.Remove(tmp.Name())
		}
	}()
	enc := json.NewEncoder(tmp)
	enc.SetIndent("", "  ")
	if err := enc.Encode(rep); err != nil {
		_ = tmp.Close()
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write report %s: %w", path, err)
	}
	return nil
}
