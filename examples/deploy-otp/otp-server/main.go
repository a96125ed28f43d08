// Command otp-server runs the deploy-otp example's OTP service:
//
//	otp-server -addr 127.0.0.1:8181 -secret rbx-demo-secret -period 30s
//
// GET /otp answers {"code": "...", "expires_in": seconds}. The secret and
// period must match the task's OTP_SECRET and OTP_PERIOD.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/rbx-sandbox/rbx/examples/deploy-otp/otp"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "otp-server:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, errOut io.Writer) error {
	fs := flag.NewFlagSet("otp-server", flag.ContinueOnError)
	fs.SetOutput(errOut)
	addr := fs.String("addr", "127.0.0.1:8181", "listen address")
	secret := fs.String("secret", envOr("OTP_SECRET", "rbx-demo-secret"), "shared secret (default $OTP_SECRET)")
	period := fs.Duration("period", 30*time.Second, "code window; a code lives between one and two periods")
	if err := fs.Parse(args); err != nil {
		return err
	}
	handler, err := otp.NewServer(*secret, *period)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(errOut, nil))
	srv := &http.Server{Addr: *addr, Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	errc := make(chan error, 1)
	go func() { errc <- srv.ListenAndServe() }()
	log.Info("otp service listening", "addr", *addr, "period", period.String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve %s: %w", *addr, err)
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("shut down: %w", err)
	}
	return nil
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
