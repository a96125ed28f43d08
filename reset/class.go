package reset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"

	"github.com/rbx-sandbox/rbx/provision"
	"github.com/rbx-sandbox/rbx/sandbox"
	"github.com/rbx-sandbox/rbx/task"
)

// LabelClass marks a sandbox with its class key (through
// sandbox.LabelValue).
const LabelClass = "rbx.class"

// ClassSpec is the spec of tk's sandbox class: what makes sandboxes
// interchangeable (image, workdir, env, limits, shell mode, user,
// network, capabilities, root), without what names the task. Every task
// of a class draws its sandboxes from one warm set; its own files are
// staged at hand-out.
func ClassSpec(tk *task.Task) sandbox.Spec {
	spec := provision.Spec(tk)
	spec.Labels = maps.Clone(spec.Labels)
	spec.Annotations = maps.Clone(spec.Annotations)
	delete(spec.Labels, sandbox.LabelTask)
	delete(spec.Annotations, sandbox.AnnotationTask)
	return spec
}

// ClassKey identifies tk's sandbox class: a short digest of ClassSpec,
// after the image's name (for logs and labels). An edited task whose
// sandbox changes gets another class, never a stale warm sandbox.
func ClassKey(tk *task.Task) string {
	spec := ClassSpec(tk)
	b, _ := json.Marshal(spec)
	h := sha256.Sum256(b)
	return sandbox.LabelValue(imageName(spec.Image)) + "-" + hex.EncodeToString(h[:6])
}

// imageName is an image reference's last path element without its tag,
// a readable prefix of a class key.
func imageName(ref string) string {
	for i := len(ref) - 1; i >= 0; i-- {
		if ref[i] == '/' {
			ref = ref[i+1:]
			break
		}
	}
	for i := 0; i < len(ref); i++ {
		if ref[i] == ':' || ref[i] == '@' {
			return ref[:i]
		}
	}
	if ref == "" {
		return "local"
	}
	return ref
}

// RecycleInPlace is the recycle function of sandboxes created with
// Spec.Recycle (see WithRecycle): the backend proves the sandbox fresh or
// fails, and the pool then removes it.
func RecycleInPlace(ctx context.Context, sb sandbox.Sandbox) error {
	r, ok := sb.(sandbox.Recycler)
	if !ok {
		return fmt.Errorf("recycle sandbox %s: %w: the backend cannot prove it fresh", sb.ID(), sandbox.ErrUnsupported)
	}
	_, err := r.Recycle(ctx)
	return err
}
