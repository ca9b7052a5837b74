package etcdstorage

import (
	"context"
	"log/slog"
	"strings"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// slogCore sends zap records (etcd's logging) to a slog.Logger.
type slogCore struct {
	log   *slog.Logger
	level zapcore.Level
	attrs []slog.Attr
}

func newSlogCore(log *slog.Logger, level zapcore.Level) zapcore.Core {
	return &slogCore{log: log.With("component", "etcd"), level: level}
}

func (c *slogCore) Enabled(l zapcore.Level) bool { return l >= c.level }

func (c *slogCore) With(fields []zapcore.Field) zapcore.Core {
	attrs := append(append([]slog.Attr(nil), c.attrs...), toAttrs(fields)...)
	return &slogCore{log: c.log, level: c.level, attrs: attrs}
}

func (c *slogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *slogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	if benign(e.Message) || expectedRetry(e.Message, fields) {
		return nil
	}
	attrs := append(append([]slog.Attr(nil), c.attrs...), toAttrs(fields)...)
	c.log.LogAttrs(context.Background(), slogLevel(e.Level), e.Message, attrs...)
	return nil
}

func (c *slogCore) Sync() error { return nil }

func toAttrs(fields []zapcore.Field) []slog.Attr {
	if len(fields) == 0 {
		return nil
	}
	enc := zapcore.NewMapObjectEncoder()
	for _, f := range fields {
		f.AddTo(enc)
	}
	attrs := make([]slog.Attr, 0, len(enc.Fields))
	for k, v := range enc.Fields {
		attrs = append(attrs, slog.Any(k, v))
	}
	return attrs
}

func slogLevel(l zapcore.Level) slog.Level {
	switch {
	case l >= zapcore.ErrorLevel:
		return slog.LevelError
	case l >= zapcore.WarnLevel:
		return slog.LevelWarn
	case l >= zapcore.InfoLevel:
		return slog.LevelInfo
	default:
		return slog.LevelDebug
	}
}

// benign are messages etcd logs as warnings or errors on every start and
// stop of a single embedded member; they say nothing is wrong.
var benignMessages = []string{
	"Running http and grpc server on single port",
	"simple token is not cryptographically signed",
	"Failed to detect schema version",
	"failed to update storage version",
	"setting up serving from embedded etcd failed",
	"stopping insecure grpc server due to error",
	"stopped insecure grpc server due to error",
}

func benign(msg string) bool {
	for _, m := range benignMessages {
		if strings.HasPrefix(msg, m) {
			return true
		}
	}
	return false
}

// expectedRetry is the client's warning about a read at a compacted
// revision, which the storage answers as ErrCompacted.
func expectedRetry(msg string, fields []zapcore.Field) bool {
	if msg != "retrying of unary invoker failed" {
		return false
	}
	for _, f := range fields {
		if f.Key == "error" && f.Interface != nil {
			if err, ok := f.Interface.(error); ok && strings.Contains(err.Error(), "compacted") {
				return true
			}
		}
	}
	return false
}

// ZapLogger is a zap logger that writes to log what is at level or above,
// for the etcd libraries that log through zap.
func ZapLogger(log *slog.Logger, level zapcore.Level) *zap.Logger {
	return zap.New(newSlogCore(log, level))
}
