package sdk

import (
	"log/slog"
	"os"
	"strings"
)

// Logger writes to the plugin's stderr, which specd reads into its own log
// with the plugin's name; each record keeps its level there. (Plain lines
// written to stderr, by the log package for one, arrive at level info.)
var Logger = slog.New(slog.NewJSONHandler(os.Stderr, &slog.HandlerOptions{
	Level:       slog.LevelDebug,
	ReplaceAttr: hclogKeys,
}))

// hclogKeys names the record's fields as go-plugin's JSON log lines do, the
// form specd reads.
func hclogKeys(groups []string, a slog.Attr) slog.Attr {
	if len(groups) > 0 {
		return a
	}
	switch a.Key {
	case slog.TimeKey:
		a.Key = "@timestamp"
	case slog.LevelKey:
		a.Key, a.Value = "@level", slog.StringValue(strings.ToLower(a.Value.String()))
	case slog.MessageKey:
		a.Key = "@message"
	}
	return a
}
