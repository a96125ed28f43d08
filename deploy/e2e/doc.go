// Package e2e holds no code: its directory is the overlay of rbx serve's
// Kubernetes deployment (deploy/kubernetes) that the test cluster runs,
// and its tests deploy it there and drive rbx serve through its Service.
// See docs/kubernetes.md, "Running rbx serve in a cluster".
package e2e
