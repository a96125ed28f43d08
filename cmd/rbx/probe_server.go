package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/rbx-sandbox/rbx/policy"
	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/rollout"
	"github.com/rbx-sandbox/rbx/server"
	"github.com/rbx-sandbox/rbx/server/client"
	"github.com/rbx-sandbox/rbx/task"
)

// serverClient connects to --server with --token-file and --ca-file.
func (o *probeOptions) serverClient() (*client.Client, error) {
	var opts []client.Option
	if o.tokenFile != "" {
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return nil, usageError("--token-file: %v", err)
		}
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return nil, usageError("--token-file %s is empty", o.tokenFile)
		}
		opts = append(opts, client.WithToken(tok))
	}
	if o.caFile != "" {
		opts = append(opts, client.WithCAFile(o.caFile))
	}
	c, err := client.New(o.server, opts...)
	if err != nil {
		return nil, usageError("--server: %v", err)
	}
	return c, nil
}

// runProbeServer probes through a running rbx serve: its reference, its
// pool and its verifier, at explicit checkpoints that do not feed its
// curriculum.
func runProbeServer(ctx context.Context, s Streams, o *probeOptions, pol policy.Policy, opts []probe.Option) error {
	c, err := o.serverClient()
	if err != nil {
		return err
	}
	id := o.arg
	if _, statErr := os.Stat(o.arg); statErr == nil { // a local path names the task
		in, err := o.locate()
		if err != nil {
			return fmt.Errorf("%w: %w", errUsage, err)
		}
		ld, err := loadTrajectory(in.TrajectoryPath, in.ID, in.TaskPath)
		if err != nil {
			return err
		}
		id = ld.task.ID
	}
	ts, err := c.Task(ctx, id)
	var ae *server.APIError
	if errors.As(err, &ae) && ae.Code == server.CodeUnknownTask {
		return usageError("%s", unknownServed(ctx, c, id, o.server))
	}
	if err != nil {
		return fmt.Errorf("task %s on %s: %w", id, o.server, err)
	}
	ref, err := c.Reference(ctx, id, ts.ReferenceVersion)
	if err != nil {
		return fmt.Errorf("reference v%d of %s on %s: %w", ts.ReferenceVersion, id, o.server, err)
	}
	// What a policy is told of the task; the server holds the rest
	// (limits, verifier) and applies it.
	tk := &task.Task{ID: ts.ID, Instruction: ts.Instruction, Image: ts.Image, Workdir: ts.Workdir}
	pr, err := probe.NewOn(rollout.NewServed(c), pol, opts...)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "probing %s v%d (task %s, %d steps) with the %s policy through %s: %s, %d rollouts per checkpoint, concurrency %d (explicit k: the server's curriculum is not fed)\n",
		ref.ID, ts.ReferenceVersion, id, ref.Len(), pol.Name(), o.server, o.mode, o.rollouts, o.concurrency)
	res, runErr := pr.Run(ctx, tk, ref)
	if res == nil {
		return runErr
	}
	return errors.Join(runErr, writeProbe(s, o, res))
}

// unknownServed names the tasks the server serves, close matches first.
func unknownServed(ctx context.Context, c *client.Client, id, url string) string {
	tasks, err := c.Tasks(ctx)
	if err != nil {
		return fmt.Sprintf("task %q is not served by %s (and listing its tasks failed: %v)", id, url, err)
	}
	ids := make([]string, len(tasks))
	for i, t := range tasks {
		ids[i] = t.ID
	}
	msg := fmt.Sprintf("task %q is not served by %s", id, url)
	if close := closeMatches(id, ids); len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	if len(ids) > maxListed { // a server may serve thousands
		return msg + fmt.Sprintf("; served tasks: %s, … (%d in all: GET /v1/tasks?q=)", strings.Join(ids[:maxListed], ", "), len(ids))
	}
	return msg + "; served tasks: " + strings.Join(ids, ", ")
}

// maxListed bounds the served tasks an error message names.
const maxListed = 20
