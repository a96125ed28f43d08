package datasettest

import (
	"fmt"
	"io"

	"github.com/rbx-sandbox/rbx/trajectory"
)

// writeReference writes task i's reference: t.Steps steps (4–6) of shell
// and write_file actions whose last writes the token the verifier checks.
func writeReference(w io.Writer, t Task, i int) error {
	tr := &trajectory.Trajectory{ID: t.ID + "-ref", Task: "task.yaml", Steps: referenceSteps(t.Steps, i)}
	if err := trajectory.Write(w, tr); err != nil {
		return fmt.Errorf("reference: %w", err)
	}
	return nil
}

// referenceSteps builds n (4–6) steps: notes are written and read back,
// then done.txt gets the token. Every observation is what busybox sh,
// dash and bash all print, so replay compares it on every image.
func referenceSteps(n, i int) []trajectory.Step {
	note := fmt.Sprintf("note %d\n", i)
	steps := []trajectory.Step{
		shell("mkdir -p notes && echo started", "started\n"),
		writeFile("notes/a.txt", note),
		shell("cat notes/a.txt", note),
	}
	for j := 3; j < n-1; j++ {
		steps = append(steps, shell(fmt.Sprintf("echo %d >> notes/log && wc -l < notes/log", j), countLine(j-2)))
	}
	return append(steps, writeFile("done.txt", Token(i)+"\n"))
}

// countLine is wc -l's answer for n lines, which busybox pads with no
// spaces and GNU coreutils neither when reading stdin.
func countLine(n int) string { return fmt.Sprintf("%d\n", n) }

func shell(cmd, out string) trajectory.Step {
	code := 0
	return trajectory.Step{Action: trajectory.KindShell, Command: cmd,
		Observation: &trajectory.Observation{Output: out, ExitCode: &code}}
}

func writeFile(path, content string) trajectory.Step {
	code := 0
	c := content
	return trajectory.Step{Action: trajectory.KindWriteFile, Path: path, Content: &c,
		Observation: &trajectory.Observation{ExitCode: &code}}
}
