package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"

	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/admission"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// admissionFlags are the operator's policy over what tasks may ask of
// their sandboxes (package admission), on every command that runs them.
type admissionFlags struct {
	file             string
	caps, registries []string
	network          bool
	denyRoot         bool
	denyWritableRoot bool
	// parsed is the policy once built (the file is read once).
	parsed *admission.Policy
}

func (a *admissionFlags) register(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&a.file, "task-policy", "", "operator policy file (YAML: allow_caps, allow_network, deny_root, deny_writable_root, allow_registries) over what tasks may ask for; the flags below add to it (docs/isolation.md)")
	f.StringSliceVar(&a.caps, "allow-cap", nil, "capabilities tasks may add (cap_add) beyond the default set and the safe list "+fmt.Sprint(admission.SafeCaps)+"; a task asking for another is refused")
	f.BoolVar(&a.network, "allow-network", false, "let tasks ask for network: bridge (refused otherwise)")
	f.StringSliceVar(&a.registries, "allow-registry", nil, "registries (host[:port]) task images may be pulled from (none by default: an image --pull would pull from elsewhere is refused)")
	f.BoolVar(&a.denyRoot, "deny-root", false, "refuse tasks that do not name a non-root user")
	f.BoolVar(&a.denyWritableRoot, "deny-writable-root", false, "refuse tasks that do not ask for read_only_root")
}

// policy is the operator's policy: the defaults, the file's, the flags'.
func (a *admissionFlags) policy() (admission.Policy, error) {
	if a.parsed != nil {
		return *a.parsed, nil
	}
	p := admission.Default()
	if a.file != "" {
		fp, err := admission.Load(a.file)
		if err != nil {
			return p, usageError("--task-policy: %v", err)
		}
		p = p.Merge(fp)
	}
	caps := make([]string, len(a.caps))
	for i, c := range a.caps {
		caps[i] = admission.NormalCap(c)
	}
	p = p.Merge(admission.Policy{Caps: caps, Network: a.network, Registries: a.registries, DenyRoot: a.denyRoot, DenyWritableRoot: a.denyWritableRoot})
	if err := p.Validate(); err != nil {
		return p, usageError("task policy: %v", err)
	}
	a.parsed = &p
	return p, nil
}

// admit refuses, before any sandbox exists, tasks that ask for more than
// the operator's policy allows: a usage error (exit 2) naming every
// refused field.
func (f *runtimeFlags) admit(tasks ...*task.Task) error {
	p, err := f.admission.policy()
	if err != nil {
		return err
	}
	pull, err := f.pullPolicy()
	if err != nil {
		return err
	}
	local, done := f.localImages()
	defer done()
	var errs []error
	for _, tk := range tasks {
		if err := p.Admit(tk, pull, local); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("%w: task refused by the operator's policy: %w", errUsage, errors.Join(errs...))
	}
	return nil
}

// localImages asks the runtime, opened on first use, whether an image is
// on this host: an image built or loaded locally under a plain name is
// not pulled under --pull missing, so it needs no registry. done closes
// what it opened.
func (f *runtimeFlags) localImages() (admission.LocalImages, func()) {
	var rt sandbox.Runtime
	var store sandbox.ImageStore
	var opened bool
	ctx := context.Background()
	look := func(ref string) (bool, error) {
		if !opened {
			opened = true
			r, err := openRuntime(ctx, *f, io.Discard, slog.New(slog.DiscardHandler))
			if err != nil {
				return false, err
			}
			rt = r
			store, _ = r.(sandbox.ImageStore)
		}
		if store == nil {
			return false, nil
		}
		return store.ImagePresent(ctx, ref)
	}
	return look, func() {
		if rt != nil {
			_ = rt.Close()
		}
	}
}
