package prefix

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rbx-sandbox/rbx/sandbox/session"
)

// shellDiff brings a fresh session shell (in the state d0 of every fresh
// sandbox of the template) to the captured state dj, and says how to check
// that it did.
type shellDiff struct {
	Shell string `json:"shell"`
	// Restore runs before the check; Options (set -o, shopt) after it, as
	// an option such as xtrace would mix its trace into the check's dump.
	Restore string `json:"restore"`
	Options string `json:"options"`
	// Expect are the restored variables' records ("" = unset) and, for sh,
	// whether each is exported.
	Expect   map[string]string `json:"expect"`
	Exported map[string]bool   `json:"exported,omitempty"`
	// Sections must read back equal after the restore.
	Sections map[string]string `json:"sections"`
}

// checkedSections must be equal after a restore (F, N: functions; A:
// aliases; T: traps; U: umask; D: cwd; X: what cannot be restored: jobs,
// limits, positional parameters, directory stack; R: sh's readonly set).
var checkedSections = []string{"F", "N", "A", "T", "U", "D", "X", "R"}

// diffShell returns the restore from d0 to dj, or a *NotReusableError when
// the prefix changed something a restore cannot carry. step is the last
// step of the prefix, named in the error.
func diffShell(d0, dj *shellState, step int) (*shellDiff, error) {
	if d0.Shell != dj.Shell {
		return nil, notReusable(step, "the session shell changed from %s to %s", d0.Shell, dj.Shell)
	}
	for _, sec := range []string{"X", "R"} {
		if d0.Sections[sec] != dj.Sections[sec] {
			return nil, notReusable(step, "the prefix changed shell state the cache cannot carry (jobs, limits, positional parameters, directory stack or readonly variables): %s",
				firstDiff(d0.Sections[sec], dj.Sections[sec]))
		}
	}
	d := &shellDiff{Shell: dj.Shell, Expect: map[string]string{}, Sections: map[string]string{}}
	for _, sec := range checkedSections {
		d.Sections[sec] = dj.Sections[sec]
	}
	var b strings.Builder
	cd := d0.Sections["D"] != dj.Sections["D"]
	if cd {
		fmt.Fprintf(&b, "cd -- %s\n", session.Quote(strings.TrimSuffix(dj.Sections["D"], "\n")))
	}
	if dj.Shell == "bash" {
		d.bashVars(&b, d0, dj, cd)
		d.bashRest(&b, d0, dj)
	} else {
		d.Exported = map[string]bool{}
		d.shVars(&b, d0, dj, cd)
		d.shRest(&b, d0, dj)
	}
	if dj.Sections["U"] != d0.Sections["U"] {
		fmt.Fprintf(&b, "umask %s\n", strings.TrimSpace(dj.Sections["U"]))
	}
	d.Restore = b.String()
	o0 := d0.options()
	var opts []string
	for _, l := range dj.options() {
		if !slices.Contains(o0, l) {
			opts = append(opts, l)
		}
	}
	d.Options = strings.Join(opts, "\n")
	return d, nil
}

func (d *shellDiff) bashVars(b *strings.Builder, d0, dj *shellState, cd bool) {
	for _, n := range union(d0.Vars, dj.Vars) {
		r0, r1 := d0.Vars[n], dj.Vars[n]
		if ignoredVar(n) || (r0 == r1 && !(cd && n == "OLDPWD")) {
			continue
		}
		d.Expect[n] = r1
		if r1 == "" {
			fmt.Fprintf(b, "builtin unset -v %s\n", n)
			continue
		}
		// declare -g: global even if this ever runs inside a function.
		fmt.Fprintf(b, "builtin unset -v %s 2>/dev/null; builtin declare -g%s\n", n, strings.TrimPrefix(r1, "declare"))
	}
}

func (d *shellDiff) bashRest(b *strings.Builder, d0, dj *shellState) {
	if d0.Sections["F"] != dj.Sections["F"] || d0.Sections["N"] != dj.Sections["N"] {
		f0, f1 := funcNames(d0.Sections["N"]), funcNames(dj.Sections["N"])
		for n := range f0 {
			if _, ok := f1[n]; !ok {
				fmt.Fprintf(b, "builtin unset -f %s\n", n)
			}
		}
		b.WriteString(dj.Sections["F"])
		for _, n := range names(f1) {
			if f1[n] {
				fmt.Fprintf(b, "builtin export -f %s\n", n)
			}
		}
	}
	if d0.Sections["A"] != dj.Sections["A"] {
		b.WriteString("builtin unalias -a 2>/dev/null\n" + dj.Sections["A"])
	}
	d.traps(b, d0, dj)
}

func (d *shellDiff) shVars(b *strings.Builder, d0, dj *shellState, cd bool) {
	for _, n := range union(d0.Vars, dj.Vars) {
		v0, ok0 := d0.Vars[n]
		v1, ok1 := dj.Vars[n]
		same := ok0 == ok1 && v0 == v1 && d0.Exported[n] == dj.Exported[n]
		if ignoredVar(n) || (same && !(cd && n == "OLDPWD")) {
			continue
		}
		if !ok1 {
			d.Expect[n] = ""
			fmt.Fprintf(b, "unset %s\n", n)
			continue
		}
		d.Expect[n], d.Exported[n] = v1, dj.Exported[n]
		fmt.Fprintf(b, "unset %s 2>/dev/null; %s=%s\n", n, n, v1)
		if dj.Exported[n] {
			fmt.Fprintf(b, "export %s\n", n)
		}
	}
}

func (d *shellDiff) shRest(b *strings.Builder, d0, dj *shellState) {
	if d0.Sections["A"] != dj.Sections["A"] {
		b.WriteString("unalias -a 2>/dev/null\n")
		for _, l := range strings.SplitAfter(dj.Sections["A"], "\n") {
			if strings.TrimSpace(l) != "" {
				b.WriteString("alias " + l)
			}
		}
		if !strings.HasSuffix(dj.Sections["A"], "\n") {
			b.WriteString("\n")
		}
	}
	d.traps(b, d0, dj)
}

// traps resets the traps the prefix removed and sets its own.
func (d *shellDiff) traps(b *strings.Builder, d0, dj *shellState) {
	if d0.Sections["T"] == dj.Sections["T"] {
		return
	}
	t1 := trapSignals(dj.Sections["T"])
	for s := range trapSignals(d0.Sections["T"]) {
		if !t1[s] {
			fmt.Fprintf(b, "trap - %s\n", s)
		}
	}
	b.WriteString(dj.Sections["T"])
}

// check compares a dump taken after the restore with what was captured.
func (d *shellDiff) check(dt *shellState) error {
	if dt.Shell != d.Shell {
		return fmt.Errorf("shell %s, captured from %s", dt.Shell, d.Shell)
	}
	for _, n := range names(d.Expect) {
		want := d.Expect[n]
		got, ok := dt.Vars[n]
		switch {
		case want == "" && ok && d.Shell == "bash":
			return fmt.Errorf("variable %s still set: %s", n, clipText(got, 80))
		case want != "" && got != want:
			return fmt.Errorf("variable %s: got %s, captured %s", n, clipText(got, 80), clipText(want, 80))
		case d.Shell == "sh" && d.Exported[n] != dt.Exported[n]:
			return fmt.Errorf("variable %s: exported %v, captured %v", n, dt.Exported[n], d.Exported[n])
		}
	}
	for _, sec := range checkedSections {
		if dt.Sections[sec] != d.Sections[sec] {
			return fmt.Errorf("shell state %s differs: %s", sec, firstDiff(d.Sections[sec], dt.Sections[sec]))
		}
	}
	return nil
}

// funcNames parses `declare -F` lines ("declare -f[x] NAME"): name →
// exported.
func funcNames(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		f := strings.Fields(l)
		if len(f) == 3 && f[0] == "declare" {
			out[f[2]] = strings.Contains(f[1], "x")
		}
	}
	return out
}

// trapSignals returns the signals of `trap -p` / `trap` lines (the last word).
func trapSignals(text string) map[string]bool {
	out := map[string]bool{}
	for _, l := range strings.Split(text, "\n") {
		if f := strings.Fields(l); len(f) > 1 && f[0] == "trap" {
			out[f[len(f)-1]] = true
		}
	}
	return out
}

func union[V any](a, b map[string]V) []string {
	m := map[string]bool{}
	for n := range a {
		m[n] = true
	}
	for n := range b {
		m[n] = true
	}
	return names(m)
}

// firstDiff quotes the first line that differs between a and b.
func firstDiff(a, b string) string {
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("%q became %q", clipText(x, 80), clipText(y, 80))
		}
	}
	return "(equal)"
}
