package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// render runs kustomize (its Go library, the code of `kubectl apply -k`)
// on the e2e overlay with the test's images: what a user's overlay does
// with kustomize's images: field.
func render(t testing.TB, root string, imgs testImages, tasks string) []*unstructured.Unstructured {
	t.Helper()
	dir := t.TempDir()
	name := func(ref string) (string, string) {
		i := len(ref) - 1
		for ref[i] != ':' {
			i--
		}
		return ref[:i], ref[i+1:]
	}
	var images []map[string]string
	for from, to := range map[string]string{
		"registry.example.com/rbx/server": imgs.server,
		"registry.example.com/rbx/tasks":  tasks,
		"rbx-e2e/otp":                     imgs.otp,
	} {
		n, tg := name(to)
		images = append(images, map[string]string{"name": from, "newName": n, "newTag": tg})
	}
	// Kustomize takes no absolute base.
	base, err := filepath.Rel(dir, filepath.Join(root, "deploy/e2e"))
	require.NoError(t, err)
	k := map[string]any{
		"apiVersion": "kustomize.config.k8s.io/v1beta1", "kind": "Kustomization",
		"resources": []string{base}, "images": images,
	}
	b, err := json.Marshal(k) // JSON is YAML
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "kustomization.yaml"), b, 0o644))
	rm, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(filesys.MakeFsOnDisk(), dir)
	require.NoError(t, err, "kustomize build")
	var out []*unstructured.Unstructured
	for _, r := range rm.Resources() {
		m, err := r.Map()
		require.NoError(t, err)
		out = append(out, &unstructured.Unstructured{Object: m})
	}
	return out
}

// applier applies objects with server-side apply, as `kubectl apply
// --server-side` does.
type applier struct {
	dyn    dynamic.Interface
	mapper meta.RESTMapper
}

func newApplier(t testing.TB, cfg *rest.Config) *applier {
	t.Helper()
	dyn, err := dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

func (a *applier) apply(ctx context.Context, objs []*unstructured.Unstructured) error {
	force := true
	for _, o := range objs {
		gvk := o.GroupVersionKind()
		m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			return fmt.Errorf("apply %s %s: %w", gvk.Kind, o.GetName(), err)
		}
		var ri dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			ri = a.dyn.Resource(m.Resource).Namespace(o.GetNamespace())
		}
		data, err := json.Marshal(o)
		if err != nil {
			return err
		}
		if _, err := ri.Patch(ctx, o.GetName(), types.ApplyPatchType, data, metav1.PatchOptions{FieldManager: "rbx-e2e", Force: &force}); err != nil {
			return fmt.Errorf("apply %s %s/%s: %w", gvk.Kind, o.GetNamespace(), o.GetName(), err)
		}
	}
	return nil
}
