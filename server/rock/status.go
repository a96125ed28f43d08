package rock

import (
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// statusResult is SandboxStatusResponse. Strings are never null (the SDK's
// models reject null where ROCK itself never sends it).
type statusResult struct {
	SandboxID     string            `json:"sandbox_id"`
	Status        map[string]phase  `json:"status"`
	PortMapping   map[string]int    `json:"port_mapping"`
	HostName      string            `json:"host_name"`
	HostIP        string            `json:"host_ip"`
	IsAlive       bool              `json:"is_alive"`
	Image         string            `json:"image"`
	Metadata      map[string]string `json:"metadata"`
	GatewayVer    string            `json:"gateway_version"`
	SweRexVer     string            `json:"swe_rex_version"`
	UserID        string            `json:"user_id"`
	ExperimentID  string            `json:"experiment_id"`
	Namespace     string            `json:"namespace"`
	CPUs          *float64          `json:"cpus"`
	Memory        string            `json:"memory"`
	NumGPUs       float64           `json:"num_gpus"`
	Accelerator   string            `json:"accelerator_type"`
	Disk          string            `json:"disk"`
	DiskRootfs    string            `json:"disk_limit_rootfs"`
	State         string            `json:"state"`
	StartTime     string            `json:"start_time"`
	StopTime      string            `json:"stop_time"`
	CreateTime    string            `json:"create_time"`
	AutoStopTime  string            `json:"auto_stop_time"`
	StateHistory  []transition      `json:"state_history"`
	ArchiveTime   string            `json:"archive_time"`
	DeleteTime    string            `json:"delete_time"`
	AutoArchive   string            `json:"auto_archive_time"`
	AutoDeleteTim string            `json:"auto_delete_time"`
}

// getStatus reports a sandbox. As in ROCK, a stopped sandbox is "not
// found" unless include_all_states is true; a failed start shows as a
// failed phase (the SDK then fails the start with its message).
func (h *Handler) getStatus(r *http.Request) (any, *failure) {
	q := r.URL.Query()
	id := q.Get("sandbox_id")
	if f := required("sandbox_id", id); f != nil {
		return nil, f
	}
	all, _ := strconv.ParseBool(q.Get("include_all_states"))
	h.mu.Lock()
	b := h.boxes[id]
	h.mu.Unlock()
	fail := failed("get sandbox status failed", fmt.Sprintf("Sandbox %s not found", id))
	if b == nil {
		return nil, fail
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == stateStopped && !all {
		return nil, fail
	}
	if b.state == stateRunning {
		b.used = time.Now() // ROCK refreshes the timeout on get_status too
	}
	return h.statusOf(r, b), nil
}

// statusOf renders b; b.mu held.
func (h *Handler) statusOf(r *http.Request, b *box) statusResult {
	st := statusResult{SandboxID: b.id, Status: map[string]phase{}, PortMapping: map[string]int{},
		HostName: h.host, HostIP: h.hostIP(r), IsAlive: b.state == stateRunning && !b.stopping,
		Image: b.req.Image, Metadata: map[string]string{}, UserID: b.who.UserID, ExperimentID: b.who.ExperimentID,
		Namespace: b.who.Namespace, CPUs: b.req.cpusPtr(), Memory: sizeString(b.req.Memory), Disk: sizeString(b.req.Disk),
		State: b.state, StartTime: isoTime(b.started), StopTime: isoTime(b.stopped), CreateTime: isoTime(b.created),
		StateHistory: append([]transition{}, b.history...)}
	st.DiskRootfs = st.Disk
	for k, v := range b.phases {
		st.Status[k] = v
	}
	if b.state == stateRunning {
		st.AutoStopTime = isoTime(b.used.Add(b.ttl))
	}
	if b.lease != nil {
		for k, v := range b.lease.Metadata() {
			st.Metadata[k] = v
		}
	}
	for k, v := range b.outcome {
		st.Metadata[k] = v
	}
	return st
}

// isAlive is ROCK's older liveness probe.
func (h *Handler) isAlive(r *http.Request) (any, *failure) {
	id := r.URL.Query().Get("sandbox_id")
	h.mu.Lock()
	b := h.boxes[id]
	h.mu.Unlock()
	alive := false
	if b != nil {
		b.mu.Lock()
		alive = b.state == stateRunning && !b.stopping
		b.mu.Unlock()
	}
	msg := h.host
	if !alive {
		msg = fmt.Sprintf("sandbox %s is alive failed", id)
	}
	return map[string]any{"is_alive": alive, "message": msg}, nil
}

// sizeString renders bytes as ROCK's memory strings ("8g"); 0 is "".
func sizeString(n int64) string {
	switch {
	case n == 0:
		return ""
	case n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "g"
	case n%(1<<20) == 0:
		return strconv.FormatInt(n>>20, 10) + "m"
	}
	return strconv.FormatInt(n, 10)
}
