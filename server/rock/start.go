package rock

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"math"
	"net"
	"net/http"
	"strings"
	"time"
)

// startBody is start_async's request (SandboxStartRequest); unknown keys
// (registry credentials, kata, archive settings) are ignored.
type startBody struct {
	Image            string   `json:"image"`
	ImageOS          string   `json:"image_os"`
	AutoClearMinutes *float64 `json:"auto_clear_time_minutes"`
	Memory           string   `json:"memory"`
	CPUs             *float64 `json:"cpus"`
	LimitCPUs        *float64 `json:"limit_cpus"`
	SandboxID        *string  `json:"sandbox_id"`
	Disk             *string  `json:"disk"`
	NumGPUs          *float64 `json:"num_gpus"`
}

// startResult is SandboxStartResponse.
type startResult struct {
	SandboxID     string   `json:"sandbox_id"`
	HostName      string   `json:"host_name"`
	HostIP        string   `json:"host_ip"`
	Code          *int     `json:"code"`
	ExitCode      *int     `json:"exit_code"`
	FailureReason string   `json:"failure_reason"`
	CPUs          *float64 `json:"cpus"`
	Memory        string   `json:"memory"`
	Disk          string   `json:"disk"`
	DiskRootfs    string   `json:"disk_limit_rootfs"`
}

// startAsync registers a sandbox and starts it in the background; the
// caller polls get_status until is_alive. Requests the server can refuse
// at once (an unknown image form, GPUs, a taken id) are Failed here.
func (h *Handler) startAsync(r *http.Request) (any, *failure) {
	var body startBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	req, f := h.startRequest(r, body)
	if f != nil {
		return nil, f
	}
	ttl := h.cfg.ttl
	if m := body.AutoClearMinutes; m != nil && *m > 0 {
		ttl = min(time.Duration(*m*float64(time.Minute)), h.cfg.maxTTL)
	}
	id := "rbx-" + randomHex(10)
	if body.SandboxID != nil && *body.SandboxID != "" {
		if id = *body.SandboxID; !idPattern.MatchString(id) {
			return nil, invalid(fmt.Sprintf("sandbox_id %q: expected letters, digits, '.', '_' or '-', at most 128", clip(id, 64)))
		}
	}
	b := newBox(id, req, callerOf(r), ttl)
	h.mu.Lock()
	switch {
	case h.closed:
		h.mu.Unlock()
		return nil, failed("async start sandbox failed", "the server is shutting down")
	case h.boxes[id] != nil:
		h.mu.Unlock()
		return nil, failed("async start sandbox failed", fmt.Sprintf("sandbox %s already exists", id))
	}
	h.boxes[id] = b
	h.wg.Add(1)
	h.mu.Unlock()
	go h.run(b)
	res := startResult{SandboxID: id, HostName: h.host, HostIP: h.hostIP(r), CPUs: req.cpusPtr(),
		Memory: body.Memory, Disk: deref(body.Disk)}
	res.DiskRootfs = res.Disk
	return res, nil
}

// startRequest validates start_async's body into a StartRequest.
func (h *Handler) startRequest(r *http.Request, body startBody) (StartRequest, *failure) {
	if f := required("image", body.Image); f != nil {
		return StartRequest{}, f
	}
	if os := strings.ToLower(body.ImageOS); os != "" && os != "linux" {
		return StartRequest{}, failed("async start sandbox failed", fmt.Sprintf("image_os %q: rbx runs linux images only", body.ImageOS))
	}
	if g := body.NumGPUs; g != nil && *g > 0 {
		return StartRequest{}, failed("async start sandbox failed", "num_gpus: rbx sandboxes have no GPUs")
	}
	image := body.Image
	if v := r.Header.Get("X-Rbx-Image"); v != "" {
		image = v // the same channel for clients that can set headers
	}
	req := StartRequest{Image: image, FeedCurriculum: strings.EqualFold(r.Header.Get("X-Rbx-Feed-Curriculum"), "true")}
	ref, isRef, err := ParseImage(image)
	if err != nil {
		return StartRequest{}, failed("async start sandbox failed", err.Error())
	}
	if isRef {
		req.Ref = ref
	}
	var f *failure
	if req.Memory, f = parseSize("memory", body.Memory); f != nil {
		return StartRequest{}, f
	}
	if req.Disk, f = parseSize("disk", deref(body.Disk)); f != nil {
		return StartRequest{}, f
	}
	for _, c := range []*float64{body.LimitCPUs, body.CPUs} { // limit_cpus is the hard cap
		if c != nil && *c > 0 && !math.IsInf(*c, 0) {
			req.CPUs = *c
			break
		}
	}
	return req, nil
}

// run starts b's sandbox and records the outcome in b.
func (h *Handler) run(b *box) {
	defer h.wg.Done()
	kind := map[bool]string{true: "task", false: "image"}[b.req.Ref != nil]
	b.mu.Lock()
	b.phases["image_pull"] = phase{phaseRunning, "preparing " + b.req.Image}
	b.phases["docker_run"] = phase{phaseWaiting, "waiting"}
	b.mu.Unlock()
	lease, err := h.be.Start(h.ctx, b.req)
	b.mu.Lock()
	defer b.mu.Unlock()
	if err != nil {
		h.met.starts.WithLabelValues(kind, "failed").Inc()
		h.cfg.log.Warn("rock: start failed", "sandbox", b.id, "image", b.req.Image, "err", err)
		b.phases["image_pull"] = phase{phaseSuccess, "done"}
		b.phases["docker_run"] = phase{phaseFailed, err.Error()}
		b.startErr, b.stopped = err, time.Now()
		return
	}
	if b.state == stateStopped || b.stopping { // stopped or shut down while starting
		b.mu.Unlock()
		_, _ = lease.Close(h.ctx, CloseDiscard)
		b.mu.Lock()
		return
	}
	h.met.starts.WithLabelValues(kind, "ok").Inc()
	h.met.running.Inc()
	b.lease, b.used = lease, time.Now()
	b.phases["image_pull"] = phase{phaseSuccess, "image ready"}
	b.phases["docker_run"] = phase{phaseSuccess, "sandbox running"}
	if b.req.Ref != nil {
		b.phases["rbx_reset"] = phase{phaseSuccess, "replayed to checkpoint k=" + lease.Metadata()["rbx.k"]}
	}
	b.setState(stateRunning, "alive")
}

// hostIP is the address the request came in on (ROLL fails a start whose
// host_ip is empty).
func (h *Handler) hostIP(r *http.Request) string {
	if h.cfg.hostIP != "" {
		return h.cfg.hostIP
	}
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		if host, _, err := net.SplitHostPort(a.String()); err == nil && host != "" {
			return host
		}
	}
	return "127.0.0.1"
}

func (req StartRequest) cpusPtr() *float64 {
	if req.CPUs == 0 {
		return nil
	}
	c := req.CPUs
	return &c
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
