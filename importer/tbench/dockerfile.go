package tbench

import (
	"fmt"
	"path"
	"strings"

	"github.com/rbx-sandbox/rbx/images"
)

// dockerfile is a Dockerfile rewritten for an offline build.
type dockerfile struct {
	text     string // FROM lines rewritten to local images
	bases    []string
	workdir  string
	problems []Problem
	// copies are the build context's files the image holds (COPY).
	copies []copyMap
	// replacements are the network commands of RUN lines replaced by
	// what the base image provides.
	replacements []Replacement
	offline      *offlineRewriter
}

// instruction is one logical Dockerfile line (continuations joined).
type instruction struct {
	line  int
	start int // index in the physical lines
	end   int
	text  string
}

func instructions(lines []string) []instruction {
	var out []instruction
	for i := 0; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		in := instruction{line: i + 1, start: i}
		var sb strings.Builder
		for ; i < len(lines); i++ {
			l := strings.TrimRight(lines[i], " \t\r")
			if strings.HasPrefix(strings.TrimSpace(l), "#") && i > in.start {
				continue
			}
			if !strings.HasSuffix(l, "\\") {
				sb.WriteString(l)
				break
			}
			sb.WriteString(strings.TrimSuffix(l, "\\"))
			sb.WriteString("\n")
		}
		in.end, in.text = i, sb.String()
		out = append(out, in)
	}
	return out
}

// rewriteDockerfile maps each FROM to a local image through aliases and
// reports what cannot build offline.
func rewriteDockerfile(name, src string, aliases images.Aliases) dockerfile {
	lines := strings.Split(src, "\n")
	df := dockerfile{offline: &offlineRewriter{file: name}}
	stages := map[string]bool{}
	ins := instructions(lines)
	for _, in := range ins {
		fields := strings.Fields(in.text)
		switch strings.ToUpper(fields[0]) {
		case "FROM":
			df.from(name, in, fields, lines, stages, aliases)
		case "RUN":
			df.run(in, lines)
		case "ADD":
			if strings.Contains(in.text, "://") {
				df.problems = append(df.problems, Problem{File: name, Line: in.line, Text: in.text, Reason: "ADD from a URL downloads from the network"})
			}
		case "COPY":
			df.copies = append(df.copies, copyOf(in.text, df.workdir)...)
		case "WORKDIR":
			if len(fields) > 1 {
				w := fields[1]
				if !path.IsAbs(w) {
					w = path.Join(orRoot(df.workdir), w)
				}
				df.workdir = w
			}
		}
	}
	mergeRuns(lines, ins)
	df.text = strings.Join(lines, "\n")
	return df
}

func (df *dockerfile) from(name string, in instruction, fields, lines []string, stages map[string]bool, aliases images.Aliases) {
	args := fields[1:]
	for len(args) > 0 && strings.HasPrefix(args[0], "--") {
		args = args[1:]
	}
	if len(args) == 0 {
		df.problems = append(df.problems, Problem{File: name, Line: in.line, Text: in.text, Reason: "FROM without an image"})
		return
	}
	ref := args[0]
	if len(args) >= 3 && strings.EqualFold(args[1], "AS") {
		stages[strings.ToLower(args[2])] = true
	}
	if stages[strings.ToLower(ref)] && ref != args[len(args)-1] || ref == "scratch" {
		return
	}
	local, ok := aliases.Resolve(ref)
	if !ok {
		df.problems = append(df.problems, Problem{File: name, Line: in.line, Text: in.text,
			Reason: fmt.Sprintf("base image %s has no local alias (images/aliases.yaml) and nothing can be pulled", ref)})
		return
	}
	lines[in.start] = "# rbx import: FROM " + ref + " rewritten to a local image\n" + strings.Replace(lines[in.start], ref, local, 1)
	df.bases = append(df.bases, local)
	df.workdir = ""
	df.offline = &offlineRewriter{file: name, provides: images.Provided(local)}
}

// run rewrites the network commands of one RUN instruction (shell form)
// and records what it replaced and what is left.
func (df *dockerfile) run(in instruction, lines []string) {
	body := strings.TrimSpace(in.text)[len("RUN"):]
	if strings.HasPrefix(strings.TrimSpace(body), "[") {
		df.problems = append(df.problems, scanOffline(df.offline.file, in.line, in.text)...)
		return
	}
	text, reps, problems := df.offline.rewrite(in.line, body)
	df.problems = append(df.problems, problems...)
	if len(reps) == 0 {
		return
	}
	df.replacements = append(df.replacements, reps...)
	var b strings.Builder
	for _, r := range reps {
		fmt.Fprintf(&b, "# rbx import: line %d: %s\n", r.Line, r.Why)
	}
	b.WriteString("RUN" + strings.ReplaceAll(text, "\n", " \\\n"))
	lines[in.start] = b.String()
	for i := in.start + 1; i <= in.end && i < len(lines); i++ {
		lines[i] = ""
	}
}

func orRoot(s string) string {
	if s == "" {
		return "/"
	}
	return s
}
