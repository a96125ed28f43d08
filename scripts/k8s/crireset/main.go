// Command crireset stops and removes every pod sandbox of a CRI runtime
// (the test cluster's containerd), so that its containers, network
// namespaces and CNI allocations are torn down through the runtime itself
// before it stops. The cluster script runs it after the kubelet stopped.
// Debian ships no crictl; this is the part of it the teardown needs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	cri "k8s.io/cri-api/pkg/apis/runtime/v1"
)

func main() {
	sock := flag.String("socket", "", "CRI socket path")
	flag.Parse()
	if err := run(*sock); err != nil {
		fmt.Fprintln(os.Stderr, "crireset:", err)
		os.Exit(1)
	}
}

func run(sock string) error {
	if sock == "" {
		return fmt.Errorf("-socket: required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := grpc.NewClient("unix://"+sock, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("connect %s: %w", sock, err)
	}
	defer conn.Close()
	rs := cri.NewRuntimeServiceClient(conn)
	list, err := rs.ListPodSandbox(ctx, &cri.ListPodSandboxRequest{})
	if err != nil {
		return fmt.Errorf("list pod sandboxes: %w", err)
	}
	for _, p := range list.Items {
		if _, err := rs.StopPodSandbox(ctx, &cri.StopPodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			return fmt.Errorf("stop pod sandbox %s (%s): %w", p.Id, p.Metadata.GetName(), err)
		}
		if _, err := rs.RemovePodSandbox(ctx, &cri.RemovePodSandboxRequest{PodSandboxId: p.Id}); err != nil {
			return fmt.Errorf("remove pod sandbox %s (%s): %w", p.Id, p.Metadata.GetName(), err)
		}
	}
	fmt.Printf("removed %d pod sandboxes\n", len(list.Items))
	return nil
}
