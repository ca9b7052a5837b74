package httpserve

import (
	"context"
	"crypto/tls"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"

	"github.com/specd-io/specd/server/resetconn"
)

// shutdownTimeout bounds the graceful shutdown: requests still running
// after it are cut.
const shutdownTimeout = 10 * time.Second

// Config is what Start serves.
type Config struct {
	Listener net.Listener
	Handler  http.Handler
	// TLS is nil for plain HTTP (--insecure-serving).
	TLS *tls.Config
	// CloseWatches ends the open watches when the shutdown begins.
	CloseWatches func()
	// Stopping runs before the shutdown begins: the readiness check
	// answers no from then on.
	Stopping func()
	Logger   *slog.Logger
}

// Serving is a running server.
type Serving struct {
	server *http.Server
	done   <-chan error
	cfg    Config
}

// Start serves cfg.Handler on cfg.Listener in the background.
func Start(cfg Config) *Serving {
	listener := resetconn.Listener(cfg.Listener)
	server := &http.Server{
		Handler:           cfg.Handler,
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
		TLSConfig:         cfg.TLS,
	}
	server.RegisterOnShutdown(cfg.CloseWatches)
	done := make(chan error, 1)
	if cfg.TLS == nil {
		go func() { done <- server.Serve(listener) }()
	} else {
		// ServeTLS with no files: the certificates come from the TLS
		// config, and it sets HTTP/2 up as ListenAndServeTLS would.
		go func() { done <- server.ServeTLS(listener, "", "") }()
	}
	return &Serving{server: server, done: done, cfg: cfg}
}

// URL is where s serves.
func (s *Serving) URL() string {
	scheme := "https"
	if s.cfg.TLS == nil {
		scheme = "http"
	}
	return scheme + "://" + s.cfg.Listener.Addr().String()
}

// Wait waits for ctx to end, then shuts the server down; it returns
// early with why if the server stops by itself.
func (s *Serving) Wait(ctx context.Context) error {
	select {
	case err := <-s.done:
		return fmt.Errorf("http server: %w", err)
	case <-ctx.Done():
	}
	s.cfg.Logger.Info("shutting down")
	if s.cfg.Stopping != nil {
		s.cfg.Stopping()
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancel()
	if err := s.server.Shutdown(shutdownCtx); err != nil {
		s.cfg.Logger.Warn("http shutdown", "err", err)
	}
	return nil
}
