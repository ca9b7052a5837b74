package plugins

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/specd-io/specd/plugins/hook"
)

func widget(spec string) []byte {
	return []byte(`{"apiVersion":"test.specd.io/v1","kind":"Widget","metadata":{"name":"w1","namespace":"ns","uid":"u-1","generation":2},"spec":` + spec + `}`)
}

func admission(op, spec, oldSpec string) hook.AdmissionRequest {
	req := hook.AdmissionRequest{Group: "test.specd.io", Version: "v1", Kind: "Widget", Resource: "widgets",
		Namespace: "ns", Name: "w1", Operation: op, Object: widget(spec)}
	if oldSpec != "" {
		req.OldObject = widget(oldSpec)
	}
	return req
}

func ctxTimeout(t testing.TB, d time.Duration) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// pidOf is the pid the test plugin that defaulted obj runs as.
func pidOf(t *testing.T, obj []byte) int {
	t.Helper()
	var o struct{ Spec struct{ Pid int } }
	if err := json.Unmarshal(obj, &o); err != nil || o.Spec.Pid == 0 {
		t.Fatalf("no spec.pid in %s (%v)", obj, err)
	}
	return o.Spec.Pid
}

// alive reports whether process pid runs; a zombie (dead, not yet reaped
// by whoever adopted it) does not.
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no /proc: trust kill
	}
	// The state follows the command name in parentheses: "pid (comm) S ...".
	if i := bytes.LastIndexByte(stat, ')'); i >= 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

func TestNewHostFindsExecutables(t *testing.T) {
	dir := pluginDir(t, map[string]string{"one": "testplugin", "two": "testplugin"})
	for name, mode := range map[string]os.FileMode{"notes.txt": 0o644, ".hidden": 0o755} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"), mode); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "subdir"), 0o755); err != nil {
		t.Fatal(err)
	}
	h, _ := newHost(t, dir, nil)
	if diff := cmp.Diff([]string{"one", "two"}, h.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	if !h.cfg.Catalog.Has("one") || h.cfg.Catalog.Has("notes.txt") || h.cfg.Catalog.Has(".hidden") || h.cfg.Catalog.Has("subdir") {
		t.Errorf("Has: one=%v notes.txt=%v .hidden=%v subdir=%v", h.cfg.Catalog.Has("one"), h.cfg.Catalog.Has("notes.txt"), h.cfg.Catalog.Has(".hidden"), h.cfg.Catalog.Has("subdir"))
	}
	for _, ph := range h.Health() {
		if ph.Running || ph.State != stateIdle {
			t.Errorf("%s started before first use: %+v", ph.Name, ph)
		}
	}
	if _, err := OpenCatalog(filepath.Join(dir, "absent"), nil); err == nil {
		t.Error("OpenCatalog of a missing directory: no error")
	}
}

func TestDefaultAndValidate(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	ctx := ctxTimeout(t, 20*time.Second)

	out, err := h.Default(ctx, "widgets", admission("CREATE", `{"size":1}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Spec map[string]any }
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if got.Spec["color"] != "blue" || got.Spec["size"] != 1.0 {
		t.Errorf("defaulted spec = %v, want color blue and size 1 kept", got.Spec)
	}

	tests := map[string]struct {
		op, spec, old string
		want          []hook.FieldError
	}{
		"valid create": {op: "CREATE", spec: `{"color":"red","serial":"a"}`},
		"bad color and size": {op: "CREATE", spec: `{"color":"green","size":-2}`, want: []hook.FieldError{
			{Type: "FieldValueNotSupported", Field: "spec.color", Message: `supported values: "blue", "red"`, Value: `"green"`},
			{Type: "FieldValueInvalid", Field: "spec.size", Message: "must be at least 0", Value: "-2"},
		}},
		"serial kept": {op: "UPDATE", spec: `{"serial":"a"}`, old: `{"serial":"a"}`},
		"serial changed": {op: "UPDATE", spec: `{"serial":"b"}`, old: `{"serial":"a"}`, want: []hook.FieldError{
			{Type: "FieldValueInvalid", Field: "spec.serial", Message: "field is immutable", Value: `"b"`},
		}},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			errs, err := h.Validate(ctx, "widgets", admission(tc.op, tc.spec, tc.old))
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, errs); diff != "" {
				t.Errorf("field errors (-want +got):\n%s", diff)
			}
		})
	}

	kinds, err := h.Kinds(ctx, "widgets")
	if err != nil {
		t.Fatal(err)
	}
	want := []hook.KindHooks{{Group: "test.specd.io", Kind: "Widget", Default: true, Validate: true, Reconcile: true, Finalizer: "test.specd.io/cleanup"}}
	if diff := cmp.Diff(want, kinds); diff != "" {
		t.Errorf("Kinds (-want +got):\n%s", diff)
	}
	if hs := h.Health(); len(hs) != 1 || !hs[0].Running || hs[0].State != stateRunning || hs[0].Restarts != 0 {
		t.Errorf("Health = %+v, want one running plugin, no restarts", hs)
	}
}

func TestPluginFunctionErrors(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	ctx := ctxTimeout(t, 20*time.Second)
	out, err := h.Default(ctx, "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, out)
	for _, action := range []string{"fail", "panic"} {
		_, err := h.Validate(ctx, "widgets", admission("CREATE", `{"action":"`+action+`"}`, ""))
		var ce *CallError
		if !errors.As(err, &ce) || ce.Plugin != "widgets" {
			t.Fatalf("%s: err = %v, want a CallError of widgets", action, err)
		}
		if !strings.Contains(err.Error(), "asked to "+action) {
			t.Errorf("%s: err = %v, want the plugin's message", action, err)
		}
	}
	// A failing function is an answer: the process lives on.
	out, err = h.Default(ctx, "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := pidOf(t, out); got != pid {
		t.Errorf("plugin restarted after a function error: pid %d, then %d", pid, got)
	}
	if _, err := h.Default(ctx, "absent", admission("CREATE", `{}`, "")); !errors.Is(err, ErrNotFound) {
		t.Errorf("absent plugin: err = %v, want ErrNotFound", err)
	}
}

func TestCrashDuringCall(t *testing.T) {
	h, logs := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	ctx := ctxTimeout(t, 20*time.Second)
	out, err := h.Default(ctx, "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, out)

	start := time.Now()
	_, err = h.Default(ctx, "widgets", admission("CREATE", `{"action":"crash"}`, ""))
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, ErrCrashed) {
		t.Fatalf("err = %v, want a CallError wrapping ErrCrashed", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the crash was answered after %s", d)
	}
	if !logs.waitFor(`"level":"ERROR"`, `"plugin":"widgets"`, "panic: testplugin: crashing on purpose") {
		t.Errorf("the plugin's panic is not in the log at level error:\n%s", logs)
	}

	// The restart happens in the background, after the backoff.
	deadline := time.Now().Add(10 * time.Second)
	for !h.Health()[0].Running && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if ph := h.Health()[0]; !ph.Running || ph.Restarts != 1 || !strings.Contains(ph.LastError, "died") {
		t.Errorf("Health after the crash = %+v, want running again, 1 restart, the death as last error", ph)
	}
	out, err = h.Default(ctx, "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := pidOf(t, out); got == pid || alive(pid) {
		t.Errorf("after the crash: pid %d (before %d, alive %v), want a new process", got, pid, alive(pid))
	}
}

func TestHangCutByDeadline(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	out, err := h.Default(ctxTimeout(t, 20*time.Second), "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, out)

	start := time.Now()
	_, err = h.Validate(ctxTimeout(t, 300*time.Millisecond), "widgets", admission("CREATE", `{"action":"hang"}`, ""))
	var ce *CallError
	if !errors.As(err, &ce) || !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want a CallError wrapping context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("the hung call returned after %s", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for alive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if alive(pid) {
		t.Errorf("the hung plugin (pid %d) was not killed", pid)
	}
	out, err = h.Default(ctxTimeout(t, 20*time.Second), "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	if got := pidOf(t, out); got == pid {
		t.Errorf("still pid %d after the hang", got)
	}
}

func TestVersionMismatchRefused(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"old-plugin": "oldplugin"}), nil)
	_, err := h.Validate(ctxTimeout(t, 20*time.Second), "old-plugin", admission("CREATE", `{}`, ""))
	if !errors.Is(err, ErrVersion) {
		t.Fatalf("err = %v, want ErrVersion", err)
	}
	want := `plugin "old-plugin": validate: plugins: incompatible plugin protocol version: ` +
		`the plugin speaks version 2, this specd speaks version 1; rebuild old-plugin with this specd's plugins/sdk`
	if err.Error() != want {
		t.Errorf("err = %q\nwant    %q", err, want)
	}
	if ph := h.Health()[0]; ph.Running || ph.State != stateFailed || !strings.Contains(ph.LastError, "version 2") {
		t.Errorf("Health = %+v, want failed with the version error", ph)
	}
}

func TestStderrLogged(t *testing.T) {
	h, logs := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	if _, err := h.Default(ctxTimeout(t, 20*time.Second), "widgets", admission("CREATE", `{"action":"log"}`, "")); err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"plain":      {`"level":"INFO"`, `"msg":"a plain line from testplugin"`, `"plugin":"widgets"`},
		"structured": {`"level":"WARN"`, `"msg":"a structured line from testplugin"`, `"plugin":"widgets"`, `"widget":"w1"`},
	}
	for name, subs := range want {
		if !logs.waitFor(subs...) {
			t.Errorf("no %s line with %v in the log:\n%s", name, subs, logs)
		}
	}
}

func TestConcurrentFirstUseStartsOnce(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	ctx := ctxTimeout(t, 20*time.Second)
	pids := make([]int, 8)
	var wg sync.WaitGroup
	for i := range pids {
		wg.Go(func() {
			out, err := h.Default(ctx, "widgets", admission("CREATE", `{}`, ""))
			if err != nil {
				t.Error(err)
				return
			}
			pids[i] = pidOf(t, out)
		})
	}
	wg.Wait()
	for _, pid := range pids[1:] {
		if pid != pids[0] {
			t.Fatalf("pids %v, want one process", pids)
		}
	}
}

func TestClose(t *testing.T) {
	h, _ := newHost(t, pluginDir(t, map[string]string{"widgets": "testplugin"}), nil)
	out, err := h.Default(ctxTimeout(t, 20*time.Second), "widgets", admission("CREATE", `{}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	pid := pidOf(t, out)
	h.Close()
	h.Close()
	if alive(pid) {
		t.Errorf("pid %d alive after Close", pid)
	}
	if _, err := h.Default(ctxTimeout(t, time.Second), "widgets", admission("CREATE", `{}`, "")); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: err = %v, want ErrClosed", err)
	}
}

// TestPlainGRPCPlugin runs a plugin that follows the recipe docs/plugins.md
// gives authors in other languages, without go-plugin on its side.
func TestPlainGRPCPlugin(t *testing.T) {
	h, logs := newHost(t, pluginDir(t, map[string]string{"raw": "rawplugin"}), nil)
	ctx := ctxTimeout(t, 20*time.Second)
	errs, err := h.Validate(ctx, "raw", admission("CREATE", `{"size":-1}`, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := []hook.FieldError{{Type: "FieldValueInvalid", Field: "spec.size", Message: "must be at least 0", Value: "-1"}}
	if diff := cmp.Diff(want, errs); diff != "" {
		t.Errorf("field errors (-want +got):\n%s", diff)
	}
	if _, err := h.Default(ctx, "raw", admission("CREATE", `{}`, "")); err == nil || !strings.Contains(err.Error(), "Default not implemented") {
		t.Errorf("Default of a plugin without it: err = %v", err)
	}
	if !logs.waitFor(`"plugin":"raw"`, "rawplugin serving") {
		t.Errorf("the plugin's stderr is not in the log:\n%s", logs)
	}
}

func TestRescanFindsNewPlugins(t *testing.T) {
	dir := pluginDir(t, map[string]string{"one": "testplugin"})
	h, _ := newHost(t, dir, nil)
	if added, err := h.cfg.Catalog.Rescan(); err != nil || len(added) != 0 {
		t.Fatalf("Rescan of an unchanged directory: %v, %v", added, err)
	}
	bin, err := os.ReadFile(filepath.Join(dir, "one"))
	if err != nil {
		t.Fatal(err)
	}
	for name, mode := range map[string]os.FileMode{"two": 0o755, "notes.txt": 0o644, ".three": 0o755} {
		if err := os.WriteFile(filepath.Join(dir, name), bin, mode); err != nil {
			t.Fatal(err)
		}
	}
	added, err := h.cfg.Catalog.Rescan()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"two"}, added); diff != "" {
		t.Errorf("Rescan added (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"one", "two"}, h.Names()); diff != "" {
		t.Errorf("Names (-want +got):\n%s", diff)
	}
	// The new plugin answers.
	if _, err := h.Kinds(context.Background(), "two"); err != nil {
		t.Errorf("the new plugin: %v", err)
	}
	// A removed plugin stays known but is no longer offered for bindings.
	if err := os.Remove(filepath.Join(dir, "one")); err != nil {
		t.Fatal(err)
	}
	if _, err := h.cfg.Catalog.Rescan(); err != nil {
		t.Fatal(err)
	}
	if h.cfg.Catalog.Has("one") || !h.cfg.Catalog.Has("two") || len(h.Names()) != 2 {
		t.Errorf("after removing one: Has(one)=%v Has(two)=%v Names=%v", h.cfg.Catalog.Has("one"), h.cfg.Catalog.Has("two"), h.Names())
	}
}
