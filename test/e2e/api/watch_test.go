package api

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	"github.com/specd-io/specd/test/e2e/harness"
)

// runKubectlFor runs kubectl in the background until it exits by itself
// (bounded by its own --request-timeout); wait returns what it printed.
func runKubectlFor(t *testing.T, k *harness.Kubectl, args ...string) (wait func() (stdout, stderr string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), harness.KubectlTimeout)
	cmd := k.Command(ctx, args...)
	var stdout, stderr harness.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	return func() (string, string) {
		defer cancel()
		_ = cmd.Wait() // a watch cut by --request-timeout may exit non-zero
		return stdout.String(), stderr.String()
	}
}

// fields splits kubectl's table lines into whitespace-separated fields.
func tableLines(out string) [][]string {
	var lines [][]string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		if f := strings.Fields(l); len(f) > 0 {
			lines = append(lines, f)
		}
	}
	return lines
}

// TestKubectlWatch: kubectl get -w prints the objects, then a line per
// change, for a collection and for one name (fieldSelector metadata.name).
func TestKubectlWatch(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	wd := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("default")
	ctx := harness.Context(t, time.Minute)
	create := func(name, color string) {
		obj := harness.WidgetObject("default", name)
		obj["spec"].(map[string]any)["color"] = color
		if _, err := wd.Create(ctx, &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	create("kw1", "red")
	create("kw2", "green")

	all := runKubectlFor(t, k, "get", "widgets", "-w", "--request-timeout=5s")
	one := runKubectlFor(t, k, "get", "widget", "kw2", "-w", "--request-timeout=5s")
	time.Sleep(1500 * time.Millisecond) // both watches are open
	got, err := wd.Get(ctx, "kw2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(got.Object, "blue", "spec", "color")
	if _, err := wd.Update(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	create("kw3", "red")

	out, errOut := all()
	t.Logf("kubectl get widgets -w printed:\n%s", out)
	lines := tableLines(out)
	want := [][]string{
		{"NAME", "COLOR", "SIZE", "PHASE", "AGE"},
		{"kw1", "red", "10"},
		{"kw2", "green", "10"},
		{"kw2", "blue", "10"},
		{"kw3", "red", "10"},
	}
	if len(lines) < len(want) {
		t.Fatalf("kubectl get -w printed %d lines, want %d:\n%s\nstderr:\n%s", len(lines), len(want), out, errOut)
	}
	for i, w := range want {
		if len(lines[i]) < len(w) || !equalPrefix(lines[i], w) {
			t.Errorf("line %d: %v, want it to start with %v\n%s", i, lines[i], w, out)
		}
	}

	out, errOut = one()
	lines = tableLines(out)
	for _, l := range lines {
		if l[0] != "NAME" && l[0] != "kw2" {
			t.Errorf("get widget kw2 -w printed another object: %v\n%s", l, out)
		}
	}
	if len(lines) < 3 || !equalPrefix(lines[1], []string{"kw2", "green"}) || !equalPrefix(lines[2], []string{"kw2", "blue"}) {
		t.Errorf("get widget kw2 -w printed:\n%s\nstderr:\n%s", out, errOut)
	}
}

func equalPrefix(got, want []string) bool {
	if len(got) < len(want) {
		return false
	}
	for i := range want {
		if got[i] != want[i] {
			return false
		}
	}
	return true
}

// TestKubectlWaitCondition: kubectl wait --for=condition=Ready returns once
// a PUT to /status adds the condition.
func TestKubectlWaitCondition(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	wd := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("default")
	ctx := harness.Context(t, time.Minute)
	if _, err := wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("default", "ready")}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	wait := runKubectlFor(t, k, "wait", "--for=condition=Ready", "widget/ready", "--timeout=20s")
	time.Sleep(time.Second)
	got, err := wd.Get(ctx, "ready", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedSlice(got.Object, []any{map[string]any{
		"type": "Ready", "status": "True", "reason": "Built", "lastTransitionTime": "2026-11-21T10:00:00Z",
	}}, "status", "conditions")
	if _, err := wd.UpdateStatus(ctx, got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	out, errOut := wait()
	if strings.TrimSpace(out) != "widget.shop.example.com/ready condition met" {
		t.Fatalf("kubectl wait printed %q, stderr %q", out, errOut)
	}
	t.Logf("kubectl wait returned %v after the status write", time.Since(start).Round(time.Millisecond))
}

// switchingProxy forwards to the current specd, so a client keeps one
// address across a specd restart.
type switchingProxy struct {
	target atomic.Pointer[url.URL]
}

func (p *switchingProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rp := httputil.NewSingleHostReverseProxy(p.target.Load())
	rp.FlushInterval = -1
	rp.ErrorLog = nil
	rp.ServeHTTP(w, r)
}

// TestInformerThroughRestart: a client-go dynamic informer stays in sync
// through a specd restart on the same data directory: it sees the changes
// made after the restart.
func TestInformerThroughRestart(t *testing.T) {
	t.Parallel()
	first := harness.StartSpecd(t, harness.SpecdOptions{})
	proxy := &switchingProxy{}
	u, _ := url.Parse(first.URL)
	proxy.target.Store(u)
	front := httptest.NewServer(proxy)
	t.Cleanup(front.Close)
	cfg := harness.RestConfig(first)
	cfg.Host, cfg.Timeout = front.URL, 0
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	wd := dyn.Resource(harness.Widgets.GVR()).Namespace("default")
	ctx := harness.Context(t, 2*time.Minute)
	create := func(name string) {
		t.Helper()
		if _, err := wd.Create(ctx, &unstructured.Unstructured{Object: harness.WidgetObject("default", name)}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
	}
	create("before")

	factory := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, "default", nil)
	inf := factory.ForResource(harness.Widgets.GVR()).Informer()
	var mu sync.Mutex
	var log bytes.Buffer
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			log.WriteString("add " + obj.(*unstructured.Unstructured).GetName() + "\n")
		},
		DeleteFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			if u, ok := obj.(*unstructured.Unstructured); ok {
				log.WriteString("delete " + u.GetName() + "\n")
			}
		},
	})
	stop := make(chan struct{})
	t.Cleanup(func() { close(stop) })
	factory.Start(stop)
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	has := func(want ...string) bool {
		keys := inf.GetStore().ListKeys()
		got := map[string]bool{}
		for _, k := range keys {
			got[k] = true
		}
		for _, w := range want {
			if strings.HasPrefix(w, "!") {
				if got["default/"+w[1:]] {
					return false
				}
			} else if !got["default/"+w] {
				return false
			}
		}
		return true
	}
	eventually := func(what string, want ...string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for !has(want...) {
			if time.Now().After(deadline) {
				mu.Lock()
				defer mu.Unlock()
				t.Fatalf("%s: informer holds %v, want %v; events:\n%s", what, inf.GetStore().ListKeys(), want, log.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	create("live")
	eventually("before the restart", "before", "live")

	first.Stop(t)
	second := harness.StartSpecd(t, first.Options())
	u2, _ := url.Parse(second.URL)
	proxy.target.Store(u2)

	create("after")
	if err := wd.Delete(ctx, "before", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually("after the restart", "live", "after", "!before")
}
