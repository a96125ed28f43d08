package main

import (
	"crypto/tls"
	"fmt"
	"net"
)

// tlsConfig loads --tls-cert/--tls-key; nil when serve speaks plain HTTP.
// It runs before anything starts, so a bad file is a usage error.
func (o *serveOptions) tlsConfig() (*tls.Config, error) {
	if o.tlsCert == "" {
		return nil, nil
	}
	cert, err := tls.LoadX509KeyPair(o.tlsCert, o.tlsKey)
	if err != nil {
		return nil, usageError("--tls-cert %s / --tls-key %s: %v", o.tlsCert, o.tlsKey, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// listen opens --addr, speaking TLS when tc is set, and returns the URL
// clients use.
func (o *serveOptions) listen(tc *tls.Config) (net.Listener, string, error) {
	ln, err := net.Listen("tcp", o.addr)
	if err != nil {
		return nil, "", fmt.Errorf("listen on %s: %w", o.addr, err)
	}
	if tc == nil {
		return ln, "http://" + ln.Addr().String(), nil
	}
	return tls.NewListener(ln, tc), "https://" + ln.Addr().String(), nil
}
