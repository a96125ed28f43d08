package kubernetes

import (
	"context"
	"fmt"
	"strings"
	"sync"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation"
)

// An rbx process that runs in a pod (rbx serve's Deployment) says so with
// WithOwnerPod. Its owner id names the pod's hostname, which no other pod
// shares, so another rbx could only judge it by its lease's age (the
// heartbeat's max age, 2 min). Naming the pod itself does better, twice:
// the sandbox pods get an ownerReference to it, so the cluster's garbage
// collector deletes them once it is gone even if no rbx ever runs again;
// and the owner's lease names it, so that the next rbx (the Deployment's
// new pod, reaping at start) takes the owner for dead as soon as the pod
// is gone, without waiting for the lease to age.

// Annotations of an owner's lease that name the pod its owner runs in, in
// the lease's namespace.
const (
	AnnotationPodName = "rbx.pod-name"
	AnnotationPodUID  = "rbx.pod-uid"
)

// WithOwnerPod says this rbx process runs in pod name, of UID uid, in the
// sandboxes' namespace (in a Deployment, from the downward API's
// metadata.name and metadata.uid). Every sandbox pod then gets an
// ownerReference to it (not a controller, no blockOwnerDeletion, which
// would need more RBAC), and the owner's lease names it (AnnotationPodName,
// AnnotationPodUID): see Heartbeats. The first Create checks that the pod
// exists in the namespace with that UID; if it does not, or cannot be read,
// the option is ignored with a warning, because an ownerReference to a pod
// of another namespace makes the garbage collector delete the sandbox at
// once, and a lease naming a missing pod would have this live owner taken
// for dead. Default: none, the owner is judged by its lease's age alone.
func WithOwnerPod(name, uid string) Option {
	return func(c *config) error {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return fmt.Errorf("owner pod %q: %s", name, strings.Join(errs, "; "))
		}
		if uid == "" {
			return fmt.Errorf("owner pod %s: empty uid", name)
		}
		c.ownerPod = &ownerPod{name: name, uid: types.UID(uid)}
		return nil
	}
}

// ownerPod is WithOwnerPod's pod and what the check of it found: ok once
// the pod was found as named, checked once the API answered either way (an
// error that tells nothing is retried at the next use).
type ownerPod struct {
	name string
	uid  types.UID

	mu      sync.Mutex
	checked bool
	ok      bool
}

// ownerPodOK reports whether WithOwnerPod's pod exists in the namespace
// with its UID, asking the API until it answers, then remembering.
func (r *Runtime) ownerPodOK(ctx context.Context) bool {
	p := r.cfg.ownerPod
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.checked {
		return p.ok
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	got, err := r.cs.CoreV1().Pods(r.namespace).Get(ctx, p.name, metav1.GetOptions{})
	switch {
	case err == nil && got.UID == p.uid:
		p.checked, p.ok = true, true
	case err == nil:
		p.checked = true
		r.cfg.log.Warn("owner pod ignored: it has another uid", "pod", p.name, "uid", p.uid, "found", got.UID, "namespace", r.namespace)
	case apierrors.IsNotFound(err), apierrors.IsForbidden(err):
		p.checked = true
		r.cfg.log.Warn("owner pod ignored: not found in the sandboxes' namespace", "pod", p.name, "namespace", r.namespace, "err", err)
	default:
		r.cfg.log.Warn("owner pod not checked yet", "pod", p.name, "err", err)
	}
	return p.ok
}

// ownedByPod adds to pod, about to be created, an ownerReference to
// WithOwnerPod's pod, so that the garbage collector deletes it with that
// pod. A reference that is no controller and does not block the owner's
// deletion needs no RBAC beyond creating the pod.
func (r *Runtime) ownedByPod(ctx context.Context, pod *corev1.Pod) {
	if !r.ownerPodOK(ctx) {
		return
	}
	no := false
	p := r.cfg.ownerPod
	pod.OwnerReferences = append(pod.OwnerReferences, metav1.OwnerReference{
		APIVersion: "v1", Kind: "Pod", Name: p.name, UID: p.uid, Controller: &no,
	})
}

// annotateLease makes owner's lease l name WithOwnerPod's pod, when owner
// is this runtime's and the pod checked out; other leases (Beat for
// another owner, in tests) are left as they are.
func (r *Runtime) annotateLease(ctx context.Context, owner string, l *coordv1.Lease) {
	if owner != r.cfg.owner || !r.ownerPodOK(ctx) {
		return
	}
	if l.Annotations == nil {
		l.Annotations = map[string]string{}
	}
	l.Annotations[AnnotationPodName] = r.cfg.ownerPod.name
	l.Annotations[AnnotationPodUID] = string(r.cfg.ownerPod.uid)
}

// leasePodGone reports whether lease l names a pod (AnnotationPodName and
// AnnotationPodUID) that is known to be gone from the lease's namespace.
// A lease naming no pod, or a pod that cannot be read, tells nothing.
func (r *Runtime) leasePodGone(ctx context.Context, l *coordv1.Lease) bool {
	name, uid := l.Annotations[AnnotationPodName], l.Annotations[AnnotationPodUID]
	if name == "" || uid == "" {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	pod, err := r.cs.CoreV1().Pods(r.namespace).Get(ctx, name, metav1.GetOptions{})
	gone := ownerPodGone(types.UID(uid), pod, err)
	if err != nil && !gone {
		r.cfg.log.Debug("owner pod unknown", "pod", name, "err", err)
	}
	return gone
}

// ownerPodGone judges a Get of the pod of UID uid: gone when it is not found,
// or found with another UID (a new pod under the same name, as a
// StatefulSet makes). Any other error, Forbidden first (RBAC without pods
// get), cannot tell: the owner must not be taken for dead on it.
func ownerPodGone(uid types.UID, pod *corev1.Pod, err error) bool {
	switch {
	case apierrors.IsNotFound(err):
		return true
	case err != nil || pod == nil:
		return false
	}
	return pod.UID != uid
}
