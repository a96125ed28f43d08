package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Listen serves h on ln until ctx is cancelled, then drains: in-flight
// requests get up to drain to finish and are cancelled after that. Requests
// do not inherit ctx's cancellation, so that Ctrl-C drains rather than
// cutting every request short.
func Listen(ctx context.Context, ln net.Listener, h http.Handler, drain time.Duration) error {
	reqCtx, cancelReqs := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelReqs()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		BaseContext: func(net.Listener) context.Context { return reqCtx }}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), drain)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil { // in-flight requests took too long: cancel them
		cancelReqs()
		return errors.Join(srv.Close(), nil)
	}
	return nil
}

// Loopback reports whether addr (host:port) only listens on the loopback
// interface; serving anywhere else needs a token.
func Loopback(addr string) (bool, error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("address %q: %w", addr, err)
	}
	if host == "localhost" {
		return true, nil
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback(), nil
}
