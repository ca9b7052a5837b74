package server

import (
	"fmt"
	"log/slog"
	"net/http"
	"time"
)

// statusRecorder remembers the status code a handler writes.
type statusRecorder struct {
	http.ResponseWriter
	code int
}

func (rec *statusRecorder) WriteHeader(code int) {
	if rec.code == 0 {
		rec.code = code
	}
	rec.ResponseWriter.WriteHeader(code)
}

func (rec *statusRecorder) Write(b []byte) (int, error) {
	if rec.code == 0 {
		rec.code = http.StatusOK
	}
	return rec.ResponseWriter.Write(b)
}

// Flush lets streaming handlers (watch) flush through the recorder.
func (rec *statusRecorder) Flush() {
	if f, ok := rec.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap is for http.ResponseController.
func (rec *statusRecorder) Unwrap() http.ResponseWriter { return rec.ResponseWriter }

// withLogging logs one debug line per request (method, path, code,
// duration) and turns a handler panic into a 500 Status. When debug is off
// it costs one Enabled check.
func (s *Server) withLogging(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		debug := s.log.Enabled(ctx, slog.LevelDebug)
		var start time.Time
		if debug {
			start = time.Now()
		}
		rec := &statusRecorder{ResponseWriter: w}
		defer s.recoverPanic(rec, r)
		next.ServeHTTP(rec, r)
		if debug {
			s.log.LogAttrs(ctx, slog.LevelDebug, "request",
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("code", rec.code),
				slog.Duration("duration", time.Since(start)))
		}
	})
}

// recoverPanic answers a handler panic with a 500 Status, through the
// one writer that logs and counts it; a handler that had already written
// its header (a watch) gets its failure logged and counted only.
func (s *Server) recoverPanic(rec *statusRecorder, r *http.Request) {
	v := recover()
	if v == nil {
		return
	}
	if v == http.ErrAbortHandler {
		panic(v)
	}
	err := fmt.Errorf("panic: %v", v)
	if rec.code == 0 {
		s.writeError(rec, r, err)
		return
	}
	s.reportFailure(r, http.StatusInternalServerError, err)
}
