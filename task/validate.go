package task

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task/source"
)

var (
	idPattern      = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,127}$`)
	envPattern     = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	servicePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)
)

// Validate checks a task built in code the way Parse checks a document,
// without touching the disk (see CheckFiles). Errors carry no line.
func (t *Task) Validate() error {
	r := source.NewReporter(t.Path, nil)
	t.validate(r)
	return r.Err()
}

func (t *Task) validate(r *source.Reporter) {
	switch {
	case t.ID == "":
		r.Errorf("id", `required: a name such as "deploy-otp"`)
	case !idPattern.MatchString(t.ID):
		r.Errorf("id", "%q: expected 1 to 128 lower-case letters, digits, '.', '_' or '-', starting with a letter or digit", t.ID)
	}
	switch {
	case t.Image == "" && t.Build == nil:
		r.Errorf("image", `required: "image", "build", or both`)
	case t.Build != nil:
		checkRelative(r, "build.context", t.Build.Context, true)
		if t.Build.Dockerfile != "" {
			checkRelative(r, "build.dockerfile", t.Build.Dockerfile, false)
		}
	}
	if t.Workdir != "" && !strings.HasPrefix(t.Workdir, "/") {
		r.Errorf("workdir", "%q: expected an absolute path such as /workspace", t.Workdir)
	}
	checkEnv(r, "env", t.Env)
	if !slices.Contains([]string{"", "session", "exec", ShellTerminal}, t.Shell) {
		r.Errorf("shell", `%q: expected "session", "exec" or "terminal"`, t.Shell)
	}
	if !slices.Contains([]string{"", "none", "bridge"}, t.Network) {
		r.Errorf("network", `%q: expected "none" or "bridge"`, t.Network)
	}
	if ts := t.Terminal; ts != nil {
		if ts.Rows < 2 || ts.Rows > 1000 {
			r.Errorf("terminal.rows", "%d: expected 2 to 1000", ts.Rows)
		}
		if ts.Cols < 2 || ts.Cols > 1000 {
			r.Errorf("terminal.cols", "%d: expected 2 to 1000", ts.Cols)
		}
	}
	t.Limits.validate(r)
	t.validateIsolation(r)
	for _, name := range sortedKeys(t.Services) {
		checkService(r, source.Key("services", name), name, t.Services[name])
	}
	checkCopies(r, "files", t.Files)
	if strings.TrimSpace(t.Verify.Command) == "" {
		r.Errorf("verify.command", "required: the command whose exit status 0 means success")
	}
	checkCopies(r, "verify.files", t.Verify.Files)
	if t.Verify.Timeout < 0 {
		r.Errorf("verify.timeout", "expected a non-negative duration")
	}
	t.validateRubric(r)
}

func (l Limits) validate(r *source.Reporter) {
	checks := []struct {
		field string
		bad   bool
	}{
		{"limits.cpus", l.CPUs < 0}, {"limits.memory", l.Memory < 0}, {"limits.pids", l.Pids < 0},
		{"limits.step_timeout", l.StepTimeout < 0}, {"limits.episode_timeout", l.EpisodeTimeout < 0},
		{"limits.output", l.Output < 0}, {"limits.disk", l.Disk < 0},
		{"limits.file_size", l.FileSize < 0}, {"limits.nofile", l.NoFile < 0},
	}
	for _, c := range checks {
		if c.bad {
			r.Errorf(c.field, "expected a non-negative value (0 means the default)")
		}
	}
	if l.NoFile > sandbox.MaxNoFile {
		r.Errorf("limits.nofile", "%d: expected at most %d", l.NoFile, sandbox.MaxNoFile)
	}
}

func (t *Task) validateRubric(r *source.Reporter) {
	seen := map[string]int{}
	for i, it := range t.Rubric {
		p := source.Index("rubric", i)
		switch prev, dup := seen[it.ID]; {
		case it.ID == "":
			r.Errorf(p+".id", "required: a name for this piece of evidence")
		case dup:
			r.Errorf(p+".id", "%q: expected a unique id, already used by rubric[%d]", it.ID, prev)
		default:
			seen[it.ID] = i
		}
		if strings.TrimSpace(it.Command) == "" {
			r.Errorf(p+".command", "required: the command whose exit status 0 earns the weight")
		}
		if it.Weight < 0 {
			r.Errorf(p+".weight", "%v: expected a non-negative weight", it.Weight)
		}
	}
}

func checkEnv(r *source.Reporter, field string, env map[string]string) {
	for _, k := range sortedKeys(env) {
		if !envPattern.MatchString(k) {
			r.KeyErrorf(source.Key(field, k), "%q: expected a shell variable name (letters, digits and '_', not starting with a digit)", k)
		}
	}
}

func checkService(r *source.Reporter, field, name, raw string) {
	if !servicePattern.MatchString(name) {
		r.KeyErrorf(field, "service name %q: expected letters, digits, '_' or '-', starting with a letter or '_'", name)
	}
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		r.Errorf(field, "%q: expected an absolute http:// or https:// URL such as http://127.0.0.1:8181", raw)
	}
}

// checkCopies checks the sources (relative to the task directory) and
// destinations of a files map.
func checkCopies(r *source.Reporter, field string, files map[string]string) {
	for _, src := range sortedKeys(files) {
		f := source.Key(field, src)
		checkRelative(r, f, src, true)
		if strings.TrimSpace(files[src]) == "" {
			r.Errorf(f, "expected a destination path in the sandbox (absolute, or relative to the workdir)")
		}
	}
}

// checkRelative reports p unless it is a relative path that stays inside
// the task directory; dotOK allows the directory itself.
func checkRelative(r *source.Reporter, field, p string, dotOK bool) {
	clean := path.Clean(p)
	switch {
	case p == "":
		r.Errorf(field, "required: a path relative to the task directory")
	case strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || (len(p) > 1 && p[1] == ':'):
		r.Errorf(field, "%q: expected a path relative to the task directory, not an absolute path", p)
	case clean == ".." || strings.HasPrefix(clean, "../"):
		r.Errorf(field, "%q: expected a path inside the task directory; it escapes with ..", p)
	case clean == "." && !dotOK:
		r.Errorf(field, "%q: expected a file inside the task directory", p)
	}
}
