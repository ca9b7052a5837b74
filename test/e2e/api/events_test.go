package api

import (
	"context"
	"strings"
	"testing"

	"github.com/specd-io/specd/test/e2e/harness"
)

// coreEvent is an Event as an old-style recorder writes it (core v1).
const coreEvent = `apiVersion: v1
kind: Event
metadata: {name: e1, namespace: default}
involvedObject: {kind: Widget, name: w1, namespace: default, apiVersion: shop.example.com/v1}
reason: Scaled
message: scaled to 5
type: Normal
source: {component: fleet-controller}
count: 1
firstTimestamp: "2026-11-25T17:00:00Z"
lastTimestamp: "2026-11-25T17:00:00Z"
`

// newEvent is an Event as client-go's events.k8s.io recorder writes it.
const newEvent = `apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: NAME, namespace: default}
eventTime: "2026-11-25T17:00:01.123456Z"
regarding: {kind: Widget, name: w2, namespace: default}
reason: Created
note: created it
type: Warning
reportingController: specd.io/test
reportingInstance: test-1
action: Create
`

// streamKubectl runs kubectl in the background (a watch) and returns what
// it has printed so far, as it prints it; the process ends with the test.
func streamKubectl(t *testing.T, k *harness.Kubectl, args ...string) (printed func() string) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	cmd := k.Command(ctx, args...)
	var stdout, stderr harness.SyncBuffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		t.Logf("kubectl %s printed:\n%s\nstderr:\n%s", strings.Join(args, " "), stdout.String(), stderr.String())
	})
	return stdout.String
}

// printedLine waits until printed has a line whose fields start with want.
func printedLine(t *testing.T, printed func() string, want ...string) {
	t.Helper()
	harness.Eventually(t, "a line "+strings.Join(want, " "), func() bool {
		for _, l := range tableLines(printed()) {
			if equalPrefix(l, want) {
				return true
			}
		}
		return false
	})
}

// TestKubectlEvents: events written in core v1 and in events.k8s.io/v1 are
// one set of objects, each listed, read and watched in either group in
// that group's shape.
func TestKubectlEvents(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	k.OK(t, "create", "-f", k.Manifest(t, "core.yaml", coreEvent))
	watch := streamKubectl(t, k, "get", "events", "-w", "--output-watch-events")
	printedLine(t, watch, "ADDED", "e1")
	k.OK(t, "create", "-f", k.Manifest(t, "new.yaml", strings.Replace(newEvent, "NAME", "e2", 1)))
	printedLine(t, watch, "ADDED", "e2", "Warning", "Created", "w2", "created", "it")

	for _, resource := range []string{"events", "events.events.k8s.io", "ev"} {
		lines := tableLines(k.OK(t, "get", resource))
		want := [][]string{{"NAME", "LAST", "SEEN", "TYPE", "REASON", "OBJECT", "MESSAGE"}, {"e1"}, {"e2"}}
		if len(lines) != len(want) || !equalPrefix(lines[0], want[0]) || lines[1][0] != "e1" || lines[2][0] != "e2" {
			t.Errorf("kubectl get %s: %v, want %v", resource, lines, want)
		}
	}
	fromNew := harness.DecodeJSON(t, k.OK(t, "get", "events.events.k8s.io", "e1", "-o", "json"))
	if fromNew["apiVersion"] != "events.k8s.io/v1" || fromNew["note"] != "scaled to 5" || fromNew["message"] != nil ||
		fromNew["regarding"].(map[string]any)["name"] != "w1" || fromNew["deprecatedSource"].(map[string]any)["component"] != "fleet-controller" {
		t.Errorf("the core event as events.k8s.io/v1: %v", fromNew)
	}
	fromCore := harness.DecodeJSON(t, k.OK(t, "get", "events", "e2", "-o", "json"))
	if fromCore["apiVersion"] != "v1" || fromCore["message"] != "created it" || fromCore["note"] != nil ||
		fromCore["involvedObject"].(map[string]any)["name"] != "w2" || fromCore["reportingComponent"] != "specd.io/test" {
		t.Errorf("the events.k8s.io event as core v1: %v", fromCore)
	}
	res := tableLines(k.OK(t, "api-resources", "--api-group", "events.k8s.io"))
	if len(res) != 2 || !equalPrefix(res[1], []string{"events", "ev", "events.k8s.io/v1", "true", "Event"}) {
		t.Errorf("kubectl api-resources --api-group events.k8s.io: %v", res)
	}
}

// TestEventTTL: with --event-ttl 2s an event goes by itself, and a watch
// of the other group sees it DELETED.
func TestEventTTL(t *testing.T) {
	t.Parallel()
	s := harness.StartSpecd(t, harness.SpecdOptions{Args: []string{"--event-ttl", "2s"}})
	k := harness.NewKubectl(t, s)
	watch := streamKubectl(t, k, "get", "events", "-w", "--output-watch-events")
	k.OK(t, "create", "-f", k.Manifest(t, "new.yaml", strings.Replace(newEvent, "NAME", "brief", 1)))
	printedLine(t, watch, "ADDED", "brief")
	printedLine(t, watch, "DELETED", "brief")
	if r := k.Run(t, "get", "events.events.k8s.io", "brief"); r.Code == 0 || !strings.Contains(r.Stderr, "NotFound") && !strings.Contains(r.Stderr, "not found") {
		t.Errorf("the expired event is still served:\n%s", r)
	}
}
