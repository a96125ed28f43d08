package kubernetes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8s "k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// saNamespaceFile holds the pod's namespace inside a cluster.
const saNamespaceFile = "/var/run/secrets/kubernetes.io/serviceaccount/namespace"

// probeTimeout bounds Available's and New's first request.
const probeTimeout = 5 * time.Second

// loadConfig returns the REST config and the namespace: WithRESTConfig as
// given; else the kubeconfig (WithKubeconfig, $KUBECONFIG, ~/.kube/config)
// and, when none exists, the in-cluster service account. The namespace is
// WithNamespace's, else the kubeconfig context's, else the service
// account's, else DefaultNamespace.
func loadConfig(c config) (*rest.Config, string, error) {
	ns := c.namespace
	if c.restConfig != nil {
		if ns == "" {
			ns = DefaultNamespace
		}
		return rest.CopyConfig(c.restConfig), ns, nil
	}
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	if c.kubeconfig != "" {
		if _, err := os.Stat(c.kubeconfig); err != nil {
			return nil, "", fmt.Errorf("kubeconfig %s: %w", c.kubeconfig, err)
		}
		rules.ExplicitPath = c.kubeconfig
	}
	cc := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: c.context})
	rc, err := cc.ClientConfig()
	if err != nil {
		return nil, "", fmt.Errorf("%w: load kubeconfig (or in-cluster config): %w", sandbox.ErrUnavailable, err)
	}
	if ns == "" {
		ns = contextNamespace(cc)
	}
	if ns == "" {
		if b, err := os.ReadFile(saNamespaceFile); err == nil {
			ns = strings.TrimSpace(string(b))
		}
	}
	if ns == "" {
		ns = DefaultNamespace
	}
	// Many sandboxes each hold exec streams and watches: client-go's default
	// of 5 queries per second would queue creates behind each other.
	rc.QPS, rc.Burst = 200, 400
	return rc, ns, nil
}

// contextNamespace returns the namespace the kubeconfig's context names
// explicitly, or "".
func contextNamespace(cc clientcmd.ClientConfig) string {
	raw, err := cc.RawConfig()
	if err != nil {
		return ""
	}
	if ctx, ok := raw.Contexts[raw.CurrentContext]; ok && ctx != nil {
		return ctx.Namespace
	}
	return ""
}

// Available reports whether the cluster of kubeconfig (empty: the default
// loading rules, then in-cluster) answers, with an error wrapping
// sandbox.ErrUnavailable when it does not.
func Available(ctx context.Context, kubeconfig string) error {
	rc, _, err := loadConfig(config{kubeconfig: kubeconfig})
	if err != nil {
		if errors.Is(err, sandbox.ErrUnavailable) {
			return err
		}
		return fmt.Errorf("%w: %w", sandbox.ErrUnavailable, err)
	}
	rc.Timeout = probeTimeout
	cs, err := k8s.NewForConfig(rc)
	if err != nil {
		return fmt.Errorf("%w: %w", sandbox.ErrUnavailable, err)
	}
	if _, err := cs.Discovery().ServerVersion(); err != nil {
		return fmt.Errorf("%w: kubernetes API %s: %w", sandbox.ErrUnavailable, rc.Host, err)
	}
	return nil
}

// ping checks that the API answers and the namespace exists; a namespace
// that cannot be read (RBAC without namespaces get) is taken on trust.
func (r *Runtime) ping(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	_, err := r.cs.CoreV1().Namespaces().Get(ctx, r.namespace, metav1.GetOptions{})
	switch {
	case err == nil, apierrors.IsForbidden(err):
		return nil
	case apierrors.IsNotFound(err):
		return fmt.Errorf("namespace %q: %w (create it, or pass --namespace)", r.namespace, sandbox.ErrNotFound)
	}
	return fmt.Errorf("%w: kubernetes API %s: %w", sandbox.ErrUnavailable, r.host, err)
}
