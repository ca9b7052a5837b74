package plugins

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// records logs writes through a stderrLog and returns the records as
// decoded JSON, without time.
func records(t *testing.T, writes ...string) []map[string]any {
	t.Helper()
	var buf bytes.Buffer
	w := &stderrLog{logger: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})).With("plugin", "p")}
	for _, s := range writes {
		if _, err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		delete(rec, "time")
		out = append(out, rec)
	}
	return out
}

func TestStderrLog(t *testing.T) {
	tests := map[string]struct {
		writes []string
		want   []map[string]any
	}{
		"plain lines, split across writes": {
			writes: []string{"first li", "ne\nsecond\n", "\n"},
			want: []map[string]any{
				{"level": "INFO", "msg": "first line", "plugin": "p"},
				{"level": "INFO", "msg": "second", "plugin": "p"},
			},
		},
		"go-plugin's JSON": {
			writes: []string{`{"@level":"debug","@message":"plugin address","@timestamp":"2026-01-01T00:00:00.000000Z","network":"unix"}` + "\n"},
			want:   []map[string]any{{"level": "DEBUG", "msg": "plugin address", "plugin": "p", "network": "unix"}},
		},
		"slog's JSON": {
			writes: []string{`{"time":"2026-01-01T00:00:00Z","level":"ERROR","msg":"boom","n":3}` + "\n"},
			want:   []map[string]any{{"level": "ERROR", "msg": "boom", "plugin": "p", "n": 3.0}},
		},
		"a panic and its trace": {
			writes: []string{"before\npanic: oops\n\ngoroutine 1 [running]:\n"},
			want: []map[string]any{
				{"level": "INFO", "msg": "before", "plugin": "p"},
				{"level": "ERROR", "msg": "panic: oops", "plugin": "p"},
				{"level": "ERROR", "msg": "goroutine 1 [running]:", "plugin": "p"},
			},
		},
		"JSON that is not a log record": {
			writes: []string{`{"a":1}` + "\r\n"},
			want:   []map[string]any{{"level": "INFO", "msg": `{"a":1}`, "plugin": "p"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, records(t, tc.writes...)); diff != "" {
				t.Errorf("records (-want +got):\n%s", diff)
			}
		})
	}
}

func TestStderrLogLongLine(t *testing.T) {
	got := records(t, strings.Repeat("x", maxLine), "yz\n")
	if len(got) != 2 || len(got[0]["msg"].(string)) != maxLine || got[1]["msg"] != "yz" {
		t.Errorf("a line of %d bytes without its end gave %d records", maxLine, len(got))
	}
}

func TestHclogger(t *testing.T) {
	var buf bytes.Buffer
	var exit string
	h := &hclogger{l: slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})), exit: func(s string) { exit = s }}
	h.With("id", "7").Error("plugin process exited", "plugin", "/path/to/p", "error", "exit status 2")
	h.Named("p").Info("a stderr line go-plugin would repeat")
	if exit != "exit status 2" {
		t.Errorf("exit = %q", exit)
	}
	out := buf.String()
	if strings.Count(out, "\n") != 1 || !strings.Contains(out, `"level":"DEBUG"`) || !strings.Contains(out, `"id":"7"`) || strings.Contains(out, "/path/to/p") {
		t.Errorf("log = %s, want one debug record with id and without the path", out)
	}
	if !h.IsDebug() || h.Named("x").IsDebug() {
		t.Error("IsDebug: want true for the logger and false for named ones")
	}
}

func TestStartError(t *testing.T) {
	err := startError("p", errors.New("incompatible API version with plugin. Plugin version: 7, Client versions: [1]"))
	if !errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), `the plugin speaks version 7, this specd speaks version 1; rebuild p with`) {
		t.Errorf("version error = %v", err)
	}
	if err := startError("p", errors.New("plugin exited before we could connect")); errors.Is(err, ErrVersion) || !strings.Contains(err.Error(), "exited before") {
		t.Errorf("other error = %v", err)
	}
}

func TestBackoff(t *testing.T) {
	for failures, want := range map[int]time.Duration{
		0: backoffBase, 1: backoffBase, 2: 2 * backoffBase, 4: 8 * backoffBase, 100: backoffMax,
	} {
		if got := backoff(failures); got != want {
			t.Errorf("backoff(%d) = %s, want %s", failures, got, want)
		}
	}
}
