package main

import (
	"github.com/spf13/cobra"

	"github.com/rbx-sandbox/rbx/sandbox"
)

// registerKubernetes adds the flags of --runtime kubernetes.
func (f *runtimeFlags) registerKubernetes(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.kubeconfig, "kubeconfig", "", "kubeconfig for --runtime kubernetes (default: $KUBECONFIG, else the in-cluster service account, else ~/.kube/config)")
	cmd.Flags().StringVar(&f.namespace, "namespace", "", "namespace of --runtime kubernetes' pods (default: the kubeconfig context's, in a cluster the service account's, else rbx)")
}

// autoBackends are the backends --runtime auto tries: not kubernetes,
// whose pods run on a cluster rather than on this host, so a kubeconfig
// lying around must not silently move sandboxes there; it is chosen by
// name.
func autoBackends(all []sandbox.Backend) []sandbox.Backend {
	var out []sandbox.Backend
	for _, b := range all {
		if b.Name != "kubernetes" {
			out = append(out, b)
		}
	}
	return out
}
