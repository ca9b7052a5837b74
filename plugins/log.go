package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"log/slog"
	"strings"
	"sync"

	"github.com/hashicorp/go-hclog"
)

// maxLine bounds the bytes held for one stderr line; a longer line is
// logged in pieces.
const maxLine = 64 << 10

// stderrLog writes a plugin process's stderr to the log, one record per
// line. JSON lines in go-plugin's form ({"@level", "@message", ...}, what
// plugins/sdk.Logger writes) keep their level and attributes; other lines
// are logged at info, and from a "panic:" or "fatal error:" line on, at
// error.
type stderrLog struct {
	logger *slog.Logger

	mu      sync.Mutex
	buf     []byte
	inPanic bool
}

func (w *stderrLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.emit(w.buf[:i])
		w.buf = w.buf[i+1:]
	}
	if len(w.buf) >= maxLine {
		w.emit(w.buf)
		w.buf = w.buf[:0]
	}
	if len(w.buf) == 0 {
		w.buf = nil // drop the grown array
	}
	return len(p), nil
}

func (w *stderrLog) emit(line []byte) {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	if level, msg, attrs, ok := structuredLine(line); ok {
		w.logger.Log(context.Background(), level, msg, attrs...)
		return
	}
	s := string(line)
	if strings.HasPrefix(s, "panic: ") || strings.HasPrefix(s, "fatal error: ") {
		w.inPanic = true
	}
	level := slog.LevelInfo
	if w.inPanic {
		level = slog.LevelError
	}
	w.logger.Log(context.Background(), level, s)
}

// structuredLine reads a JSON log line of hclog ("@message") or slog
// ("msg") shape.
func structuredLine(line []byte) (slog.Level, string, []any, bool) {
	if line[0] != '{' {
		return 0, "", nil, false
	}
	var rec map[string]any
	d := json.NewDecoder(bytes.NewReader(line))
	d.UseNumber()
	if err := d.Decode(&rec); err != nil {
		return 0, "", nil, false
	}
	msgKey, levelKey, skip := "@message", "@level", []string{"@timestamp", "@module", "@caller"}
	if _, ok := rec[msgKey]; !ok {
		msgKey, levelKey, skip = "msg", "level", []string{"time", "source"}
	}
	msg, ok := rec[msgKey].(string)
	if !ok {
		return 0, "", nil, false
	}
	level := levelOf(rec[levelKey])
	delete(rec, msgKey)
	delete(rec, levelKey)
	for _, k := range skip {
		delete(rec, k)
	}
	attrs := make([]any, 0, 2*len(rec))
	for k, v := range rec {
		attrs = append(attrs, k, v)
	}
	return level, msg, attrs, true
}

func levelOf(v any) slog.Level {
	s, _ := v.(string)
	switch strings.ToLower(s) {
	case "trace", "debug":
		return slog.LevelDebug
	case "warn", "warning":
		return slog.LevelWarn
	case "error":
		return slog.LevelError
	default:
		return slog.LevelInfo
	}
}

// hclogger adapts go-plugin's hclog logging to slog. go-plugin's own
// messages (process started, exited, ...) go to debug: the Host logs what
// matters about them itself. go-plugin's named sub-loggers are silenced:
// they would repeat the stderr lines that stderrLog already logs.
type hclogger struct {
	l    *slog.Logger
	name string
	args []any
	off  bool
	// exit, if set, gets the error of go-plugin's "plugin process exited"
	// message: how the process ended.
	exit func(string)
}

var _ hclog.Logger = (*hclogger)(nil)

func (h *hclogger) Log(level hclog.Level, msg string, args ...any) {
	if h.off || level == hclog.Off {
		return
	}
	if msg == "plugin process exited" && h.exit != nil {
		h.exit(exitReason(args))
	}
	h.l.Debug(msg, h.attrs(args)...)
}

// attrs drops go-plugin's "plugin" argument (the executable's path): the
// record carries plugin=NAME already.
func (h *hclogger) attrs(args []any) []any {
	all := append(append([]any(nil), h.args...), args...)
	out := make([]any, 0, len(all))
	for i := 0; i+1 < len(all); i += 2 {
		if k, ok := all[i].(string); ok && k == "plugin" {
			continue
		}
		out = append(out, all[i], all[i+1])
	}
	return out
}

func exitReason(args []any) string {
	for i := 0; i+1 < len(args); i += 2 {
		if k, ok := args[i].(string); ok && k == "error" {
			return fmt.Sprint(args[i+1])
		}
	}
	return "exited"
}

func (h *hclogger) Trace(msg string, args ...any) { h.Log(hclog.Trace, msg, args...) }
func (h *hclogger) Debug(msg string, args ...any) { h.Log(hclog.Debug, msg, args...) }
func (h *hclogger) Info(msg string, args ...any)  { h.Log(hclog.Info, msg, args...) }
func (h *hclogger) Warn(msg string, args ...any)  { h.Log(hclog.Warn, msg, args...) }
func (h *hclogger) Error(msg string, args ...any) { h.Log(hclog.Error, msg, args...) }

func (h *hclogger) enabled() bool {
	return !h.off && h.l.Enabled(context.Background(), slog.LevelDebug)
}
func (h *hclogger) IsTrace() bool { return h.enabled() }
func (h *hclogger) IsDebug() bool { return h.enabled() }
func (h *hclogger) IsInfo() bool  { return h.enabled() }
func (h *hclogger) IsWarn() bool  { return h.enabled() }
func (h *hclogger) IsError() bool { return h.enabled() }

func (h *hclogger) ImpliedArgs() []any { return h.args }

func (h *hclogger) With(args ...any) hclog.Logger {
	c := *h
	c.args = append(append([]any(nil), h.args...), args...)
	return &c
}

func (h *hclogger) Name() string { return h.name }

func (h *hclogger) Named(name string) hclog.Logger {
	c := *h
	c.name, c.off = name, true
	return &c
}

func (h *hclogger) ResetNamed(name string) hclog.Logger { return h.Named(name) }

func (h *hclogger) SetLevel(hclog.Level) {}

func (h *hclogger) GetLevel() hclog.Level {
	if h.off {
		return hclog.Off
	}
	return hclog.Debug
}

func (h *hclogger) StandardLogger(*hclog.StandardLoggerOptions) *log.Logger {
	return log.New(h.StandardWriter(nil), "", 0)
}

func (h *hclogger) StandardWriter(*hclog.StandardLoggerOptions) io.Writer {
	if h.off {
		return io.Discard
	}
	return &stderrLog{logger: h.l}
}
