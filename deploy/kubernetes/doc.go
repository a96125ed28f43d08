// Package deploy holds no code: its directory is rbx serve's Kubernetes
// deployment (manifests for `kubectl apply -k`, the server and tasks image
// Dockerfiles, the e2e overlay), and its tests deploy it on the test
// cluster (scripts/k8s-cluster.sh) and drive it through its Service. See
// docs/kubernetes.md, "Running rbx serve in a cluster".
package deploy
