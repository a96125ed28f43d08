package trajectory

import (
	"strings"

	"github.com/rbx-sandbox/rbx/task"
	"github.com/rbx-sandbox/rbx/task/source"
)

// Validate checks a trajectory built in code the way Parse checks a
// document. Errors name the field path but carry no line.
func (t *Trajectory) Validate() error {
	r := source.NewReporter(t.Path, nil)
	t.validate(r, nil)
	return r.Err()
}

// CheckAction checks one step built in code, such as an action an agent
// asked for, as Validate checks a trajectory's steps; errors name the
// member relative to the step. vars are the variables bound before it; with
// vars nil, {{vars.X}} references are checked only for their form (the
// caller does not know what is bound).
func CheckAction(s Step, vars map[string]string) error {
	r := source.NewReporter("", nil)
	var defined map[string]bool
	if vars != nil {
		defined = map[string]bool{}
		for k := range vars {
			defined[k] = true
		}
	}
	sv := stepValidator{r: r, s: &s, present: setFields(&s)}
	sv.validate(defined)
	return r.Err()
}

// validate checks t; root, when not nil, is the document t was decoded
// from: it supplies positions and the members actually written.
func (t *Trajectory) validate(r *source.Reporter, root *source.Node) {
	if strings.TrimSpace(t.ID) == "" {
		r.Errorf("id", "required: a name for this trajectory")
	}
	if strings.TrimSpace(t.Task) == "" {
		r.Errorf("task", "required: the task's id, or the path of its file relative to this file")
	}
	defined := map[string]bool{}
	for _, k := range sortedKeys(t.Vars) {
		if !varName.MatchString(k) {
			r.KeyErrorf(source.Key("vars", k), "%q: expected a variable name (letters, digits and '_', not starting with a digit)", k)
		}
		defined[k] = true
	}
	for i, m := range t.Messages {
		checkMessage(r, source.Index("messages", i), m)
	}
	if len(t.Steps) == 0 {
		r.Errorf("steps", "expected at least one step")
	}
	var steps *source.Node
	if root != nil {
		steps = root.Get("steps")
	}
	for i := range t.Steps {
		s := &t.Steps[i]
		present := setFields(s)
		if steps != nil && i < len(steps.Items) {
			for k := range steps.Items[i].Keys() {
				present[k] = true
			}
		}
		sv := stepValidator{r: r, s: s, path: source.Index("steps", i), present: present}
		sv.validate(defined)
		for name := range s.Capture {
			defined[name] = true
		}
	}
}

// CheckServices reports every {{services.NAME}} reference in t's steps
// that tk does not declare, with ErrUndefined in its message.
func (t *Trajectory) CheckServices(tk *task.Task) error {
	r := source.NewReporter(t.Path, nil)
	for i := range t.Steps {
		_ = t.Steps[i].templated(func(field, val string) (string, error) {
			for _, ref := range References(val) {
				if _, ok := tk.Services[ref.Name]; ref.Valid() && ref.Scope == ScopeServices && !ok {
					r.Errorf(source.Index("steps", i)+"."+field, "%s: %v: task %q declares no service %q",
						ref.Raw, ErrUndefined, tk.ID, ref.Name)
				}
			}
			return val, nil
		})
	}
	return r.Err()
}
