package clients

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/specd-io/specd/test/e2e/harness"
)

// leaderTimeout bounds the wait for a candidate to lead: after a kill, the
// Lease must first expire (electionArgs).
const leaderTimeout = time.Minute

// electionArgs shorten the libraries' default timings (15 s lease, 10 s
// renew deadline, 2 s retry) so a takeover after a kill takes seconds.
var electionArgs = []string{"--lease-duration=4s", "--renew-deadline=3s", "--retry-period=500ms"}

// becameLeader is the line the test controller logs when it leads.
var becameLeader = regexp.MustCompile(`msg="became leader"`)

// TestControllerRuntime runs a controller-runtime v0.25 Manager, as a user
// writes it (test/controller), against specd over TLS: leader election on
// a Lease, an Unstructured reconciler that writes Widgets' status, and an
// event recorder; then two managers, the leader killed, the other leading.
func TestControllerRuntime(t *testing.T) {
	t.Parallel()
	bin := harness.ControllerTool.Path(t)
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	kube := typedClient(t, s)
	k := harness.NewKubectl(t, s)

	t.Run("manager", func(t *testing.T) {
		m := startManager(t, bin, s, "solo", "widgets-solo")
		waitLeader(t, m)
		holder := leaseHolder(t, kube, "widgets-solo")
		if holder == "" {
			t.Fatalf("Lease default/widgets-solo has no holderIdentity while %s leads", m.Name)
		}
		createWidget(t, k, "w1")
		waitReconciled(t, s, "w1", 1, "solo")
		k.OK(t, "patch", "widget", "w1", "--type=merge", "-p", `{"spec":{"size":20}}`)
		waitReconciled(t, s, "w1", 2, "solo")
		waitCoreEvent(t, kube, "Widget", "w1", "Reconciled", "generation 2 reconciled by solo")
		waitEventsV1(t, kube, "Widget", "w1", "Reconciled", "generation 1 reconciled by solo")
		// The leader election's own Event, through the core/v1 recorder.
		waitCoreEvent(t, kube, "Lease", "widgets-solo", "LeaderElection", holder+" became leader")
	})

	t.Run("failover", func(t *testing.T) {
		a := startManager(t, bin, s, "first", "widgets-failover")
		b := startManager(t, bin, s, "second", "widgets-failover")
		leader, other := waitOneLeader(t, a, b)
		before := leaseHolder(t, kube, "widgets-failover")
		leader.Kill()
		t.Logf("killed the leader %s (Lease holder %s)", leader.Name, before)
		waitLeader(t, other)
		after := leaseHolder(t, kube, "widgets-failover")
		if after == "" || after == before {
			t.Fatalf("Lease holder %q after the takeover, was %q", after, before)
		}
		createWidget(t, k, "w2")
		waitReconciled(t, s, "w2", 1, other.Name)
	})
}

// TestClientGoLeaderElection runs two candidates of client-go's
// leaderelection with a LeaseLock: one leads; stopped, it releases the
// Lease, and the other leads.
func TestClientGoLeaderElection(t *testing.T) {
	t.Parallel()
	bin := harness.ControllerTool.Path(t)
	s := harness.StartSpecd(t, harness.SpecdOptions{Secure: true})
	kube := typedClient(t, s)
	candidate := func(id string) *harness.ClientProc {
		args := append([]string{"elect", "--kubeconfig", s.Kubeconfig, "--identity", id, "--election-id", "elect-e2e"}, electionArgs...)
		return harness.StartClient(t, id, bin, args...)
	}
	leader, other := waitOneLeader(t, candidate("alpha"), candidate("beta"))
	if h := leaseHolder(t, kube, "elect-e2e"); h != leader.Name {
		t.Fatalf("Lease holder %q, want the leader %s", h, leader.Name)
	}
	if !leader.Stop(t) || leader.Err() != nil {
		t.Fatalf("the leader did not exit cleanly after SIGTERM: %v", leader.Err())
	}
	if !leader.Logged(regexp.MustCompile(`msg="stopped leading"`)) {
		t.Errorf("the leader did not log that it stopped leading")
	}
	waitLeader(t, other)
	if h := leaseHolder(t, kube, "elect-e2e"); h != other.Name {
		t.Fatalf("Lease holder %q after the leader stopped, want %s", h, other.Name)
	}
}

// typedClient is client-go's typed clientset for s, with its default
// content type (protobuf for built-in types).
func typedClient(t testing.TB, s *harness.Specd) *kubernetes.Clientset {
	t.Helper()
	c, err := kubernetes.NewForConfig(harness.RestConfig(s))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// startManager runs the test controller's manager mode as identity, with
// its leader election Lease default/electionID.
func startManager(t *testing.T, bin string, s *harness.Specd, identity, electionID string) *harness.ClientProc {
	t.Helper()
	args := append([]string{"manager", "--kubeconfig", s.Kubeconfig, "--identity", identity, "--election-id", electionID}, electionArgs...)
	return harness.StartClient(t, identity, bin, args...)
}

// waitLeader waits until p logs that it leads.
func waitLeader(t *testing.T, p *harness.ClientProc) {
	t.Helper()
	harness.WaitFor(t, leaderTimeout, p.Name+" leading", func() bool {
		if p.Exited() {
			t.Fatalf("%s exited before it led: %v\n%s", p.Name, p.Err(), p.Out.String())
		}
		return p.Logged(becameLeader)
	})
}

// waitOneLeader waits until one of a and b leads, fails if both do, and
// returns the leader first.
func waitOneLeader(t *testing.T, a, b *harness.ClientProc) (leader, other *harness.ClientProc) {
	t.Helper()
	harness.WaitFor(t, leaderTimeout, "a leader", func() bool {
		for _, p := range []*harness.ClientProc{a, b} {
			if p.Exited() {
				t.Fatalf("%s exited: %v\n%s", p.Name, p.Err(), p.Out.String())
			}
		}
		return a.Logged(becameLeader) || b.Logged(becameLeader)
	})
	// The other had its chance to (wrongly) lead while the winner did.
	time.Sleep(time.Second)
	if a.Logged(becameLeader) && b.Logged(becameLeader) {
		t.Fatalf("both %s and %s lead", a.Name, b.Name)
	}
	if a.Logged(becameLeader) {
		return a, b
	}
	return b, a
}

// leaseHolder reads the Lease default/name with the typed client.
func leaseHolder(t *testing.T, kube *kubernetes.Clientset, name string) string {
	t.Helper()
	lease, err := kube.CoordinationV1().Leases("default").Get(harness.Context(t, harness.ClientTimeout), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get Lease default/%s: %v", name, err)
	}
	return holderOf(lease)
}

func holderOf(l *coordinationv1.Lease) string {
	if l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

func createWidget(t *testing.T, k *harness.Kubectl, name string) {
	t.Helper()
	k.OK(t, "create", "-f", k.Manifest(t, name+".yaml", fmt.Sprintf(`apiVersion: shop.example.com/v1
kind: Widget
metadata:
  name: %s
  namespace: default
spec:
  color: green
`, name)))
}

// waitReconciled waits until widget default/name's status says generation
// was reconciled by identity.
func waitReconciled(t *testing.T, s *harness.Specd, name string, generation int64, identity string) {
	t.Helper()
	wd := harness.DynamicClient(t, s).Resource(harness.Widgets.GVR()).Namespace("default")
	var last map[string]any
	harness.WaitFor(t, harness.ConvergeTimeout, fmt.Sprintf("widget %s's generation %d reconciled by %s", name, generation, identity), func() bool {
		obj, err := wd.Get(harness.Context(t, harness.ClientTimeout), name, metav1.GetOptions{})
		if err != nil {
			t.Fatalf("get widget %s: %v", name, err)
		}
		last, _, _ = unstructured.NestedMap(obj.Object, "status")
		observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration")
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		return observed == generation && obj.GetGeneration() == generation &&
			slices.ContainsFunc(conds, func(c any) bool { return harness.Path(c.(map[string]any), "message") == "reconciled by "+identity })
	})
	t.Logf("widget %s status: %v", name, last)
}

// waitCoreEvent waits until the core/v1 Events in default hold one about
// kind/name with reason and message.
func waitCoreEvent(t *testing.T, kube *kubernetes.Clientset, kind, name, reason, message string) {
	t.Helper()
	harness.WaitFor(t, harness.ConvergeTimeout, fmt.Sprintf("v1 Event %s %q on %s %s", reason, message, kind, name), func() bool {
		list, err := kube.CoreV1().Events("default").List(harness.Context(t, harness.ClientTimeout), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list v1 Events: %v", err)
		}
		return slices.ContainsFunc(list.Items, func(e corev1.Event) bool {
			return e.InvolvedObject.Kind == kind && e.InvolvedObject.Name == name && e.Reason == reason && e.Message == message
		})
	})
}

// waitEventsV1 is waitCoreEvent through events.k8s.io/v1, where the same
// Events are served as regarding and note.
func waitEventsV1(t *testing.T, kube *kubernetes.Clientset, kind, name, reason, note string) {
	t.Helper()
	harness.WaitFor(t, harness.ConvergeTimeout, fmt.Sprintf("events.k8s.io Event %s %q on %s %s", reason, note, kind, name), func() bool {
		list, err := kube.EventsV1().Events("default").List(harness.Context(t, harness.ClientTimeout), metav1.ListOptions{})
		if err != nil {
			t.Fatalf("list events.k8s.io/v1 Events: %v", err)
		}
		return slices.ContainsFunc(list.Items, func(e eventsv1.Event) bool {
			return e.Regarding.Kind == kind && e.Regarding.Name == name && e.Reason == reason && e.Note == note
		})
	})
}
