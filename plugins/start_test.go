package plugins

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// slowStart puts into dir a plugin named name that sleeps for d, then runs
// the test plugin: its start is slow, its hooks are not.
func slowStart(t *testing.T, dir, name string, d time.Duration) {
	t.Helper()
	script := fmt.Sprintf("#!/bin/sh\nsleep %.3f\nexec %s\n", d.Seconds(), filepath.Join(binDir, "testplugin"))
	if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

// TestSlowStartNotChargedToDeadline: a call that starts its plugin gets
// its deadline for the plugin's answer, not for the process's start.
func TestSlowStartNotChargedToDeadline(t *testing.T) {
	dir := t.TempDir()
	slowStart(t, dir, "widgets", time.Second)
	h, _ := newHost(t, dir, nil)
	errs, err := h.Validate(ctxTimeout(t, 300*time.Millisecond), "widgets", admission("CREATE", `{"color":"green"}`, ""))
	if err != nil {
		t.Fatalf("a call of 300ms to a plugin that starts in 1s: %v", err)
	}
	if len(errs) != 1 || errs[0].Field != "spec.color" {
		t.Errorf("errs = %+v, want the plugin's spec.color error", errs)
	}
}

// TestSlowStartThenHang: after a slow start, the answer is still bounded
// by the call's time, and the hung plugin is killed.
func TestSlowStartThenHang(t *testing.T) {
	dir := t.TempDir()
	slowStart(t, dir, "widgets", time.Second)
	h, _ := newHost(t, dir, nil)
	start := time.Now()
	_, err := h.Validate(ctxTimeout(t, 300*time.Millisecond), "widgets", admission("CREATE", `{"action":"hang"}`, ""))
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the hung call returned after %s", d)
	}
	if ph := h.Health()[0]; ph.Running || !strings.Contains(ph.LastError, "deadline") {
		t.Errorf("Health = %+v, want the hung plugin killed", ph)
	}
}

// TestSlowStartCanceled: a caller that gives up while the plugin starts
// is answered at once.
func TestSlowStartCanceled(t *testing.T) {
	dir := t.TempDir()
	slowStart(t, dir, "widgets", 3*time.Second)
	h, _ := newHost(t, dir, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	_, err := h.Validate(ctx, "widgets", admission("CREATE", `{}`, ""))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the canceled call returned after %s", d)
	}
}

// TestSlowStartFails: a plugin that fails to start after its caller's
// deadline has passed is reported as a failed start, not a timeout.
func TestSlowStartFails(t *testing.T) {
	dir := t.TempDir()
	script := "#!/bin/sh\nsleep 0.5\necho 'no config' >&2\nexit 3\n"
	if err := os.WriteFile(filepath.Join(dir, "widgets"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	h, _ := newHost(t, dir, nil)
	_, err := h.Validate(ctxTimeout(t, 200*time.Millisecond), "widgets", admission("CREATE", `{}`, ""))
	var ce *CallError
	if !errors.As(err, &ce) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "start") {
		t.Fatalf("err = %v, want a CallError for the failed start", err)
	}
	if ph := h.Health()[0]; ph.State != stateFailed {
		t.Errorf("Health = %+v, want failed", ph)
	}
}
