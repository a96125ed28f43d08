package tbench

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"
)

// ComposeRequest is one thing a task's docker-compose file asks of its
// container beyond a plain one, and what the import made of it.
type ComposeRequest struct {
	Service string
	Field   string
	Value   string
	// Mapped: the imported task asks for it too (and the operator's policy
	// decides at load, docs/isolation.md); else Outcome says why not.
	Mapped  bool
	Outcome string
}

// String reads "compose service client: cap_add SYS_PTRACE: mapped to ...".
func (r ComposeRequest) String() string {
	return fmt.Sprintf("compose service %s: %s %s: %s", r.Service, r.Field, r.Value, r.Outcome)
}

// composeService is what the import reads of a compose service.
type composeService struct {
	Privileged  bool     `yaml:"privileged"`
	CapAdd      []string `yaml:"cap_add"`
	NetworkMode string   `yaml:"network_mode"`
	Networks    any      `yaml:"networks"`
	Devices     []string `yaml:"devices"`
	Volumes     []any    `yaml:"volumes"`
	Build       any      `yaml:"build"`
	SecurityOpt []string `yaml:"security_opt"`
	PID         string   `yaml:"pid"`
	IPC         string   `yaml:"ipc"`
	UsernsMode  string   `yaml:"userns_mode"`
}

// capName is a capability name as a task's cap_add takes it.
var capName = regexp.MustCompile(`^[A-Z][A-Z0-9_]*$`)

// logVolume reports terminal-bench's own log mounts, which have no
// meaning outside its harness.
func logVolume(v string) bool { return strings.HasPrefix(v, "${T_BENCH_") }

// readCompose reads the task's docker-compose file, if any, and returns
// what its services ask for. The service built from the task's Dockerfile
// (or "client") is the sandbox's: its cap_add is mapped onto the task;
// everything else that would widen the sandbox is refused by name, and
// other services are reported as not imported.
func readCompose(dir string) (reqs []ComposeRequest, capAdd []string, err error) {
	var path string
	for _, n := range []string{"docker-compose.yaml", "docker-compose.yml"} {
		if p := filepath.Join(dir, n); exists(p) {
			path = p
			break
		}
	}
	if path == "" {
		return nil, nil, nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var doc struct {
		Services map[string]composeService `yaml:"services"`
	}
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	main := mainService(doc.Services)
	names := make([]string, 0, len(doc.Services))
	for n := range doc.Services {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		svc := doc.Services[n]
		if n != main {
			reqs = append(reqs, ComposeRequest{Service: n, Field: "service", Value: n,
				Outcome: "not imported: a task is one sandbox; what this service provides is missing"})
			continue
		}
		add := func(field, value string, mapped bool, outcome string) {
			reqs = append(reqs, ComposeRequest{Service: n, Field: field, Value: value, Mapped: mapped, Outcome: outcome})
		}
		for _, c := range svc.CapAdd {
			c = strings.TrimPrefix(strings.ToUpper(c), "CAP_")
			if !capName.MatchString(c) || c == "ALL" {
				add("cap_add", c, false, "refused: name each capability the task needs")
				continue
			}
			capAdd = append(capAdd, c)
			add("cap_add", c, true, "mapped to the task's cap_add (loading it needs --allow-cap "+c+" unless it is on the safe list)")
		}
		if svc.Privileged {
			add("privileged", "true", false, "refused: rbx never runs a privileged sandbox; the task runs without it (name the capabilities it needs in cap_add)")
		}
		if svc.NetworkMode != "" {
			add("network_mode", svc.NetworkMode, false, "refused: an imported task has no network (network: none); network: bridge with --allow-network is the nearest")
		}
		if svc.Networks != nil {
			add("networks", fmt.Sprint(svc.Networks), false, "not mapped: an imported task has no network (network: none)")
		}
		for _, d := range svc.Devices {
			add("devices", d, false, "refused: a sandbox gets no host device")
		}
		for _, v := range svc.Volumes {
			s := fmt.Sprint(v)
			if logVolume(s) {
				continue
			}
			add("volumes", s, false, "refused: a sandbox mounts nothing of the host; put the files in the task (files:)")
		}
		for _, o := range svc.SecurityOpt {
			add("security_opt", o, false, "refused: rbx sets the seccomp profile and no-new-privileges itself")
		}
		for field, v := range map[string]string{"pid": svc.PID, "ipc": svc.IPC, "userns_mode": svc.UsernsMode} {
			if v != "" {
				add(field, v, false, "refused: a sandbox shares no namespace with the host")
			}
		}
	}
	return reqs, capAdd, nil
}

// mainService is the service the sandbox stands for: the one built from
// the task's folder, else "client" (terminal-bench's name), else the only
// one.
func mainService(svcs map[string]composeService) string {
	if _, ok := svcs["client"]; ok {
		return "client"
	}
	var built []string
	for n, s := range svcs {
		if s.Build != nil {
			built = append(built, n)
		}
	}
	if len(built) == 1 {
		return built[0]
	}
	if len(svcs) == 1 {
		for n := range svcs {
			return n
		}
	}
	return ""
}
