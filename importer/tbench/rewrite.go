package tbench

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// offlineRewriter rewrites the RUN instructions of one Dockerfile whose
// base image provides the toolchains in provides (images.Provided).
type offlineRewriter struct {
	file     string
	provides map[string]string
	// fetched are files that replaced downloads would have written; the
	// commands that unpack or remove them are replaced too.
	fetched map[string]string
}

// rule recognises one kind of network command and returns its offline
// replacement, or a problem when the image has no equivalent.
type rule func(w *offlineRewriter, cmd string, args []string) (with, reason string, problem string, ok bool)

var rewriteRules = []rule{
	goTarball, rustup, nodeSetup, npmGlobal, pipSelf, aptPPA, aptInstall, fetchedFile,
}

// rewrite returns the offline RUN text (line is the instruction's first
// line), the replacements made and the commands left that need the
// network, every one of them.
func (w *offlineRewriter) rewrite(line int, text string) (string, []Replacement, []Problem) {
	segs := segments(text)
	var reps []Replacement
	var problems []Problem
	for i, s := range segs {
		cmd := strings.TrimSpace(s.text)
		if cmd == "" {
			continue
		}
		at := s.offset + len(leading(s.text))
		n := line + strings.Count(text[:at], "\n")
		physical := lineAt(text, at) // problems quote the Dockerfile's line
		args := words(cmd)
		handled := false
		for _, r := range rewriteRules {
			with, reason, problem, ok := r(w, cmd, args)
			if !ok {
				continue
			}
			handled = true
			if problem != "" {
				problems = append(problems, Problem{File: w.file, Line: n, Text: physical, Reason: problem})
			} else if with != cmd {
				reps = append(reps, Replacement{File: w.file, Line: n, Original: cmd, Replacement: with, Why: reason})
				segs[i].text = leading(s.text) + with + trailing(s.text)
			}
			break
		}
		if !handled {
			for _, p := range scanOffline(w.file, n, cmd) {
				p.Text = physical
				problems = append(problems, p)
			}
		}
	}
	return joinSegments(segs), reps, problems
}

func leading(s string) string  { return s[:len(s)-len(strings.TrimLeft(s, " \t\n"))] }
func trailing(s string) string { return s[len(strings.TrimRight(s, " \t\n")):] }

var (
	goURL       = regexp.MustCompile(`(?:curl|wget)\b.*\bgo(\d+)\.(\d+)(?:\.\d+)?\.linux-[^ "']*\.tar\.gz`)
	rustupURL   = regexp.MustCompile(`(?:curl|wget)\b.*\bsh\.rustup\.rs\b`)
	nodeSetupRe = regexp.MustCompile(`(?:curl|wget)\b.*deb\.nodesource\.com/setup_(\d+)`)
)

// goTarball: the Go release tarball → the image's Go (same or newer minor).
func goTarball(w *offlineRewriter, cmd string, args []string) (string, string, string, bool) {
	m := goURL.FindStringSubmatch(cmd)
	if m == nil {
		return "", "", "", false
	}
	want := m[1] + "." + m[2]
	have, ok := w.provides["go"]
	if !ok || versionLess(have, want) {
		return "", "", fmt.Sprintf("downloads Go %s; the base image provides %s", want, orNone(have)), true
	}
	w.remember(args, "the Go tarball")
	return "go version", fmt.Sprintf("Go %s from Debian in the base image instead of the Go %s tarball", have, want), "", true
}

// rustup: the rustup installer → the image's rustc and cargo.
func rustup(w *offlineRewriter, cmd string, _ []string) (string, string, string, bool) {
	if !rustupURL.MatchString(cmd) {
		return "", "", "", false
	}
	if have, ok := w.provides["rust"]; ok {
		return "rustc --version && cargo --version", "Rust " + have + " from Debian in the base image instead of rustup", "", true
	}
	return "", "", "installs Rust with rustup; the base image provides no Rust", true
}

// nodeSetup: NodeSource's repository script → Debian's Node in the image
// (the following `apt-get install nodejs` is then already satisfied).
func nodeSetup(w *offlineRewriter, cmd string, _ []string) (string, string, string, bool) {
	m := nodeSetupRe.FindStringSubmatch(cmd)
	if m == nil {
		return "", "", "", false
	}
	have, ok := w.provides["node"]
	if !ok {
		return "", "", "adds NodeSource's repository; the base image provides no Node.js", true
	}
	reason := "Node.js " + have + " from Debian in the base image instead of NodeSource's repository"
	if have != m[1] {
		reason += " (the task asked for Node.js " + m[1] + ")"
	}
	return "node --version", reason, "", true
}

// npmGlobal: `npm install -g` of packages the image ships from Debian.
func npmGlobal(w *offlineRewriter, _ string, args []string) (string, string, string, bool) {
	if len(args) < 3 || args[0] != "npm" || (args[1] != "install" && args[1] != "i") || !hasFlag(args, "-g", "--global") {
		return "", "", "", false
	}
	var missing, notes []string
	for _, a := range args[2:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		name, ver := npmSpec(a)
		have, ok := w.provides["npm:"+name]
		switch {
		case !ok:
			missing = append(missing, a)
		case ver != "" && ver != have:
			notes = append(notes, fmt.Sprintf("%s %s for %s", name, have, a))
		}
	}
	if len(missing) > 0 {
		return "", "", "npm package(s) " + strings.Join(missing, ", ") + " not shipped by Debian", true
	}
	reason := "packages from Debian in the base image"
	if len(notes) > 0 {
		reason += "; other major versions: " + strings.Join(notes, ", ")
	}
	return "true", reason, "", true
}

// npmSpec splits "@babel/core@^7.25.2" into "@babel/core" and major "7".
func npmSpec(s string) (name, major string) {
	at := strings.LastIndex(s, "@")
	if at <= 0 {
		return s, ""
	}
	name, v := s[:at], strings.TrimLeft(s[at+1:], "^~>=v ")
	major, _, _ = strings.Cut(v, ".")
	return name, major
}

// pipSelf: upgrading pip, setuptools or wheel themselves changes nothing a
// task's tests use; Debian's are kept.
func pipSelf(_ *offlineRewriter, cmd string, args []string) (string, string, string, bool) {
	if !regexp.MustCompile(`\b(pip3?|python3?\s+-m\s+pip)\s+install\b`).MatchString(cmd) {
		return "", "", "", false
	}
	pkgs := 0
	for _, a := range args {
		switch {
		case a == "pip" || a == "setuptools" || a == "wheel":
			pkgs++
		case strings.HasPrefix(a, "-"), a == "install", a == "-m", strings.HasPrefix(a, "python"), strings.HasPrefix(a, "pip"):
		default:
			return "", "", "", false
		}
	}
	if pkgs == 0 {
		return "", "", "", false
	}
	return "true", "keeps Debian's pip, setuptools and wheel (upgrading them needs PyPI)", "", true
}

// aptPPA: a PPA that only added Python versions bookworm already has.
func aptPPA(w *offlineRewriter, _ string, args []string) (string, string, string, bool) {
	if len(args) < 2 || args[0] != "add-apt-repository" {
		return "", "", "", false
	}
	ppa := args[len(args)-1]
	if ppa == "ppa:deadsnakes/ppa" {
		return "true", "Python " + w.provides["python"] + " comes from Debian; other Python versions are rejected at their apt-get line", "", true
	}
	return "", "", "PPA " + ppa + " is not reachable (only Debian's mirror is)", true
}

// fetchedFile: a command on a file that a replaced download would have
// written (tar -xzf go.tar.gz, rm go.tar.gz).
func fetchedFile(w *offlineRewriter, cmd string, args []string) (string, string, string, bool) {
	for _, a := range args {
		if what, ok := w.fetched[a]; ok {
			return "true", "uses " + a + ", " + what + " (download replaced)", "", true
		}
	}
	return "", "", "", false
}

// remember notes the output file of a replaced curl/wget.
func (w *offlineRewriter) remember(args []string, what string) {
	for i, a := range args {
		if (a == "-o" || a == "-O" || a == "--output") && i+1 < len(args) {
			if w.fetched == nil {
				w.fetched = map[string]string{}
			}
			w.fetched[args[i+1]] = what
		}
	}
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f {
				return true
			}
		}
	}
	return false
}

// versionLess compares dotted versions numerically ("1.9" < "1.21").
func versionLess(a, b string) bool {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) && i < len(bs); i++ {
		x, _ := strconv.Atoi(as[i])
		y, _ := strconv.Atoi(bs[i])
		if x != y {
			return x < y
		}
	}
	return len(as) < len(bs)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

var (
	jdkPkg    = regexp.MustCompile(`^openjdk-(\d+)-(jdk|jre)(-headless)?$`)
	pythonPkg = regexp.MustCompile(`^python(3\.\d+)(-[a-z]+)?$`)
)

// aptInstall maps Ubuntu package names that bookworm lacks: another JDK
// major becomes the image's JDK (reported), another Python 3.x is a
// problem (bookworm has one Python 3).
func aptInstall(w *offlineRewriter, cmd string, args []string) (string, string, string, bool) {
	if len(args) < 2 || (args[0] != "apt-get" && args[0] != "apt") || !slicesContains(args, "install") {
		return "", "", "", false
	}
	out := cmd
	var reasons, problems []string
	for _, a := range args {
		if m := jdkPkg.FindStringSubmatch(a); m != nil {
			if have := w.provides["java"]; have != "" && have != m[1] {
				repl := "openjdk-" + have + "-" + m[2] + m[3]
				out = replaceWord(out, a, repl)
				reasons = append(reasons, fmt.Sprintf("%s → %s (bookworm has JDK %s)", a, repl, have))
			}
		}
		if m := pythonPkg.FindStringSubmatch(a); m != nil && w.provides["python"] != "" && m[1] != w.provides["python"] {
			problems = append(problems, fmt.Sprintf("needs Python %s (bookworm has %s)", m[1], w.provides["python"]))
		}
	}
	if len(problems) > 0 {
		return "", "", strings.Join(problems, "; "), true
	}
	return out, strings.Join(reasons, ", "), "", true
}

func slicesContains(ss []string, s string) bool { return hasFlag(ss, s) }

// replaceWord replaces whole-word occurrences of old in s.
func replaceWord(s, old, repl string) string {
	re := regexp.MustCompile(`(^|[\s'"])` + regexp.QuoteMeta(old) + `($|[\s'"])`)
	return re.ReplaceAllString(s, "${1}"+repl+"${2}")
}
