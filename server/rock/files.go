package rock

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"path"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// writeBody is write_file's request.
type writeBody struct {
	SandboxID string  `json:"sandbox_id"`
	Path      *string `json:"path"`
	Content   *string `json:"content"`
}

// writeFile writes content at path, creating parents; an existing file
// keeps its mode. A relative path resolves against the sandbox's workdir,
// where sessions start.
func (h *Handler) writeFile(r *http.Request) (any, *failure) {
	var body writeBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	if body.Path == nil || body.Content == nil {
		return nil, invalid("path and content: fields required")
	}
	if f := required("path", *body.Path); f != nil {
		return nil, f
	}
	b, f := h.box(body.SandboxID)
	if f != nil {
		return nil, f
	}
	if err := b.lease.Sandbox().WriteFile(r.Context(), *body.Path, []byte(*body.Content), 0); err != nil {
		f := failed("write file failed", err.Error())
		f.Result = map[string]any{"success": false, "message": err.Error()}
		return nil, f
	}
	return map[string]any{"success": true, "message": ""}, nil
}

// readBody is read_file's request.
type readBody struct {
	SandboxID string  `json:"sandbox_id"`
	Path      *string `json:"path"`
	Encoding  *string `json:"encoding"`
	Errors    *string `json:"errors"`
}

// readFile returns a file's text. A failure carries an empty content as
// its result too: the SDK reads result["content"] without looking at the
// status.
func (h *Handler) readFile(r *http.Request) (any, *failure) {
	var body readBody
	if f := decodeBody(r, &body); f != nil {
		return nil, f
	}
	if body.Path == nil {
		return nil, invalid("path: field required")
	}
	b, f := h.box(body.SandboxID)
	if f != nil {
		return nil, f
	}
	fail := func(err string) *failure {
		f := failed("read file failed", err)
		f.Result = map[string]string{"content": ""}
		return f
	}
	data, err := b.lease.Sandbox().ReadFile(r.Context(), *body.Path)
	if errors.Is(err, sandbox.ErrNotFound) {
		return nil, fail(fmt.Sprintf("[Errno 2] No such file or directory: %s", pyRepr(*body.Path)))
	}
	if err != nil {
		return nil, fail(err.Error())
	}
	text, err := decodeText(data, deref(body.Encoding), deref(body.Errors))
	if err != nil {
		return nil, fail(err.Error())
	}
	return map[string]string{"content": text}, nil
}

// upload stores a multipart file (fields file, target_path, sandbox_id)
// at target_path, creating parents; relative paths resolve against the
// workdir, where sessions start.
func (h *Handler) upload(r *http.Request) (any, *failure) {
	if ct, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); ct != "multipart/form-data" {
		return nil, invalid("upload: expected a multipart/form-data body with file, target_path and sandbox_id")
	}
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		return nil, invalid("upload: " + err.Error())
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	target := r.FormValue("target_path")
	if f := required("target_path", target); f != nil {
		return nil, f
	}
	file, hdr, err := r.FormFile("file")
	if err != nil {
		return nil, invalid("file: " + err.Error())
	}
	defer file.Close()
	if hdr.Size > h.cfg.maxUpload {
		return nil, failed("upload file failed", fmt.Sprintf("file of %d bytes over the %d-byte upload limit", hdr.Size, h.cfg.maxUpload))
	}
	b, f := h.box(r.FormValue("sandbox_id"))
	if f != nil {
		return nil, f
	}
	data, err := io.ReadAll(file)
	if err != nil {
		return nil, failed("upload file failed", err.Error())
	}
	// WriteFile, as the sandbox's user: an upload may do what that user's
	// shell may, nothing more (WriteFiles writes as root, for rbx's own
	// files). An existing file keeps its mode, as with write_file.
	if err := b.lease.Sandbox().WriteFile(r.Context(), target, data, 0); err != nil {
		return nil, failed("upload file failed", err.Error())
	}
	return map[string]any{"success": true, "message": "", "file_name": path.Base(target)}, nil
}
