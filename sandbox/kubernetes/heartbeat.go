package kubernetes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/rbx-sandbox/rbx/sandbox"
)

var _ sandbox.HeartbeatStore = (*Runtime)(nil)

// An owner's heartbeat is a coordination.k8s.io/v1 Lease in the sandboxes'
// namespace, "rbx-owner-<hash of the owner>": its holder is the owner, its
// renewTime the last beat, its labels rbx.managed=true and
// rbx.heartbeat-owner=<owner>, so one label-selector query lists them all.
// Every rbx process sharing the namespace sees it, on whatever host (a
// restarted in-cluster `rbx serve` pod is another host): `rbx gc` takes
// the owner for dead once the lease is older than --heartbeat-max-age. The
// lease is rbx's own record, not leader election: nothing else renews or
// takes it over. RBAC: leases get, list, create, update, delete
// (deploy/kubernetes/rbac.yaml). With WithOwnerPod the lease also names
// the owner's pod, which Heartbeats checks (ownerpod.go).

// leaseName is the name of owner's lease.
func leaseName(owner string) string {
	h := sha256.Sum256([]byte(owner))
	return "rbx-owner-" + hex.EncodeToString(h[:8])
}

// Beat records that owner was alive at at: the lease's renewTime.
func (r *Runtime) Beat(ctx context.Context, owner string, at time.Time) error {
	leases := r.cs.CoordinationV1().Leases(r.namespace)
	name := leaseName(owner)
	renew := metav1.NewMicroTime(at)
	for range 3 { // a lease created, updated or removed by another process meanwhile
		l, err := leases.Get(ctx, name, metav1.GetOptions{})
		switch {
		case apierrors.IsNotFound(err):
			l = newLease(r.namespace, name, owner, renew)
			r.annotateLease(ctx, owner, l)
			_, err = leases.Create(ctx, l, metav1.CreateOptions{})
			if !apierrors.IsAlreadyExists(err) {
				return beatErr(owner, err)
			}
			continue
		case err != nil:
			return beatErr(owner, err)
		}
		l.Spec.RenewTime = &renew
		l.Spec.HolderIdentity = &owner
		r.annotateLease(ctx, owner, l) // the pod may have been checked since the lease was made
		_, err = leases.Update(ctx, l, metav1.UpdateOptions{})
		if !apierrors.IsConflict(err) && !apierrors.IsNotFound(err) {
			return beatErr(owner, err)
		}
	}
	return beatErr(owner, fmt.Errorf("lease %s keeps changing", name))
}

// newLease returns owner's lease, renewed at renew.
func newLease(ns, name, owner string, renew metav1.MicroTime) *coordv1.Lease {
	secs := int32(sandbox.DefaultHeartbeatMaxAge / time.Second) // informative: gc's default bound
	return &coordv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{
			sandbox.LabelManaged: "true", sandbox.LabelHeartbeatOwner: owner,
		}},
		Spec: coordv1.LeaseSpec{HolderIdentity: &owner, LeaseDurationSeconds: &secs, AcquireTime: &renew, RenewTime: &renew},
	}
}

func beatErr(owner string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("heartbeat of %s: %w", owner, apiErr(err))
}

// Heartbeats returns the last beat of every owner with a lease, except
// that an owner whose lease names a pod (WithOwnerPod) that no longer
// exists, or exists with another UID, gets the zero time: older than any
// bound, so sandbox.OwnerDead, and so Reap, take it for dead at once
// rather than once its last renewal ages. A pod that cannot be read
// (Forbidden, the API) leaves the renewal as the beat.
func (r *Runtime) Heartbeats(ctx context.Context) (map[string]time.Time, error) {
	sel := labels.SelectorFromSet(labels.Set{sandbox.LabelManaged: "true"}).String() + "," + sandbox.LabelHeartbeatOwner
	list, err := r.cs.CoordinationV1().Leases(r.namespace).List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return nil, fmt.Errorf("list heartbeats: %w", apiErr(err))
	}
	beats := make(map[string]time.Time, len(list.Items))
	for _, l := range list.Items {
		owner := l.Labels[sandbox.LabelHeartbeatOwner]
		if owner == "" || l.Name != leaseName(owner) || l.Spec.RenewTime == nil {
			continue // not a lease this package wrote
		}
		if owner != r.cfg.owner && r.leasePodGone(ctx, &l) {
			beats[owner] = time.Time{}
			continue
		}
		if t := l.Spec.RenewTime.Time; t.After(beats[owner]) {
			beats[owner] = t
		}
	}
	return beats, nil
}

// ForgetHeartbeat deletes owner's lease.
func (r *Runtime) ForgetHeartbeat(ctx context.Context, owner string) error {
	err := r.cs.CoordinationV1().Leases(r.namespace).Delete(ctx, leaseName(owner), metav1.DeleteOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("forget heartbeat of %s: %w", owner, apiErr(err))
	}
	return nil
}
