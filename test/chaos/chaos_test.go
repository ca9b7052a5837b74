package chaos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
)

// phaseFor is how long each phase of the run lasts.
const phaseFor = 4 * time.Second

// TestMemberFailures: writers and watchers on two specd replicas while an
// etcd follower, then the etcd leader, then the leading specd replica are killed
// with SIGKILL and brought back. No acknowledged write is lost or made
// twice, and every watcher sees etcd's history of the Things in order,
// with no gap. The errors each client saw are logged per phase.
func TestMemberFailures(t *testing.T) {
	c := startCluster(t)
	rs := startReplicas(t, c, 2)
	a, b := rs[0], rs[1]
	client := &http.Client{Timeout: 30 * time.Second}
	if code, body, err := a.do(client, http.MethodPost, "/api/v1/namespaces", []byte(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"chaos"}}`)); answer(code, http.StatusCreated, body, err) != nil {
		t.Fatalf("create the namespace: %v", answer(code, http.StatusCreated, body, err))
	}
	start := listRV(t, a, client)
	f := newFigures()
	f.enter("steady")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var writers []*writer
	for _, r := range rs {
		for i := range 2 {
			w := &writer{name: fmt.Sprintf("writer-%s%d", r.name[len(r.name)-1:], i), replica: r, figures: f, client: client}
			writers = append(writers, w)
			wg.Go(func() { w.run(ctx) })
		}
	}
	watchers := []*watcher{
		{name: "watcher-a", replicas: []*replica{a, b}, figures: f, start: start},
		{name: "watcher-b", replicas: []*replica{b, a}, figures: f, start: start},
	}
	var wwg sync.WaitGroup
	wctx, stopWatchers := context.WithCancel(context.Background())
	defer stopWatchers()
	for _, w := range watchers {
		wwg.Go(func() { w.run(wctx) })
	}
	runPhases(t, c, rs, client, f)
	stop()
	wg.Wait()
	history := etcdHistory(t, c)
	awaitWatchers(t, watchers, history)
	stopWatchers()
	wwg.Wait()
	t.Logf("errors/requests per client and phase (a watcher counts events; a writer's slowest request follows):\n%s", f.table())
	checkWrites(t, c, writers)
	checkWatchers(t, watchers, history)
}

// runPhases kills and restarts an etcd follower, the etcd leader and
// the specd replica that runs the background work, each phase lasting
// phaseFor; the other replica must have taken that work over before the
// killed one is back.
func runPhases(t *testing.T, c *cluster, rs []*replica, client *http.Client, f *figures) {
	time.Sleep(phaseFor)
	follower := (c.leader(t) + 1) % len(c.members)
	f.enter("follower killed")
	c.members[follower].kill9()
	time.Sleep(phaseFor)
	f.enter("follower back")
	c.restart(t, follower)
	time.Sleep(phaseFor)
	leader := c.leader(t)
	f.enter("leader killed")
	c.members[leader].kill9()
	time.Sleep(phaseFor)
	f.enter("leader back")
	c.restart(t, leader)
	time.Sleep(phaseFor)
	elected := leadingReplica(t, rs, client)
	f.enter("specd leader killed")
	elected.kill9()
	time.Sleep(phaseFor)
	// The other replica takes the background work over (within the
	// leader's 5 s lease), or this fails.
	leadingReplica(t, slices.DeleteFunc(slices.Clone(rs), func(r *replica) bool { return r == elected }), client)
	f.enter("specd back")
	elected.restart(t)
	time.Sleep(phaseFor)
}

// leadingReplica returns the replica that runs the background work (its
// specd_leader gauge is 1), waiting up to 20 s for one to be elected.
func leadingReplica(t *testing.T, rs []*replica, client *http.Client) *replica {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		for _, r := range rs {
			code, body, err := r.do(client, http.MethodGet, "/metrics", nil)
			if err == nil && code == http.StatusOK && strings.Contains(string(body), `specd_leader{election="background"} 1`) {
				return r
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatal("no specd replica leads after 20 s")
	return nil
}

// listRV is the resourceVersion of a list of the Things.
func listRV(t *testing.T, r *replica, client *http.Client) string {
	t.Helper()
	code, body, err := r.do(client, http.MethodGet, thingsPath, nil)
	if err := answer(code, http.StatusOK, body, err); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(body, &list); err != nil {
		t.Fatal(err)
	}
	return list.Metadata.ResourceVersion
}

// history is etcd's own record of the Things: every change in order, and
// the objects stored at the end.
type history struct {
	events  []event
	objects []thing
}

// etcdHistory reads every change of the Things' keys from etcd, from its
// first revision to its current one, and the objects stored now.
func etcdHistory(t *testing.T, c *cluster) history {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	prefix := thingsPrefix(ctx, t, c)
	now, err := c.client.Get(ctx, prefix, clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	var h history
	var last int64 // the Things are never deleted: the last change is the newest object
	for _, kv := range now.Kvs {
		var obj thing
		if err := json.Unmarshal(kv.Value, &obj); err != nil {
			t.Fatalf("%s: %v", kv.Key, err)
		}
		h.objects = append(h.objects, obj)
		last = max(last, kv.ModRevision)
	}
	wch := c.client.Watch(ctx, prefix, clientv3.WithPrefix(), clientv3.WithRev(1))
	for resp := range wch {
		if err := resp.Err(); err != nil {
			t.Fatal(err)
		}
		for _, ev := range resp.Events {
			h.events = append(h.events, historyEvent(ev))
		}
		if lastAt(h.events, last) {
			break
		}
	}
	if !lastAt(h.events, last) {
		t.Fatalf("etcd's history of %s ends before revision %d: %v", prefix, last, ctx.Err())
	}
	return h
}

// lastAt is whether the history has reached revision rev.
func lastAt(events []event, rev int64) bool {
	if len(events) == 0 {
		return false
	}
	r, _ := strconv.ParseInt(events[len(events)-1].RV, 10, 64)
	return r >= rev
}

func historyEvent(ev *clientv3.Event) event {
	key := string(ev.Kv.Key)
	e := event{Name: key[strings.LastIndex(key, "/")+1:], RV: strconv.FormatInt(ev.Kv.ModRevision, 10)}
	switch {
	case ev.Type == mvccpb.DELETE:
		e.Type = "DELETED"
	case ev.IsCreate():
		e.Type = "ADDED"
	default:
		e.Type = "MODIFIED"
	}
	return e
}

// thingsPrefix finds the etcd key prefix of the Things in namespace
// chaos, from the keys specd wrote.
func thingsPrefix(ctx context.Context, t *testing.T, c *cluster) string {
	t.Helper()
	resp, err := c.client.Get(ctx, "/", clientv3.WithPrefix(), clientv3.WithKeysOnly())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		if k := string(kv.Key); strings.Contains(k, "/things/chaos/") {
			return k[:strings.LastIndex(k, "/")+1]
		}
	}
	t.Fatal("no Thing stored in etcd")
	return ""
}

// awaitWatchers waits until every watcher has seen the last change.
func awaitWatchers(t *testing.T, watchers []*watcher, h history) {
	t.Helper()
	if len(h.events) == 0 {
		t.Fatal("etcd has no change of the Things")
	}
	last := h.events[len(h.events)-1].RV
	deadline := time.Now().Add(30 * time.Second)
	for _, w := range watchers {
		for {
			_, seen := w.seen()
			if seen == last || w.broken() {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("%s has not seen revision %s within 30s (last %s)", w.name, last, seen)
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
}

// checkWrites: every acknowledged create is stored with its uid, every
// acknowledged update with its label, and no writer's create is stored
// twice.
func checkWrites(t *testing.T, c *cluster, writers []*writer) {
	t.Helper()
	stored := map[string]thing{}
	bySeq := map[string]int{}
	for _, obj := range etcdHistory(t, c).objects {
		stored[obj.Metadata.Name] = obj
		bySeq[obj.Metadata.Labels["writer"]+"/"+obj.Metadata.Labels["seq"]]++
	}
	var acked, lost, dups int
	for _, w := range writers {
		for _, a := range w.acked {
			acked++
			obj, ok := stored[a.name]
			switch {
			case !ok || obj.Metadata.UID != a.uid:
				lost++
				t.Errorf("%s: acknowledged create of %s (uid %s) is not stored", w.name, a.name, a.uid)
			case a.updated && obj.Spec.Label != "updated":
				lost++
				t.Errorf("%s: acknowledged update of %s is not stored (label %q)", w.name, a.name, obj.Spec.Label)
			}
		}
	}
	for seq, n := range bySeq {
		if n > 1 {
			dups++
			t.Errorf("create %s is stored %d times", seq, n)
		}
	}
	t.Logf("acknowledged creates: %d, lost: %d, duplicates: %d", acked, lost, dups)
}

// checkWatchers: each watcher saw exactly etcd's changes after the
// revision it started from, in order, and no ERROR.
func checkWatchers(t *testing.T, watchers []*watcher, h history) {
	t.Helper()
	for _, w := range watchers {
		seen, _ := w.seen()
		var want []event
		start, _ := strconv.ParseInt(w.start, 10, 64)
		for _, ev := range h.events {
			if rv, _ := strconv.ParseInt(ev.RV, 10, 64); rv > start {
				want = append(want, ev)
			}
		}
		if len(w.gone) > 0 {
			t.Errorf("%s got ERROR events: %v", w.name, w.gone)
		}
		if i := firstDifference(seen, want); i >= 0 {
			t.Errorf("%s: event %d is %v, etcd's history has %v (%d events seen, %d in etcd)", w.name, i, at(seen, i), at(want, i), len(seen), len(want))
			continue
		}
		t.Logf("%s saw all %d events in etcd's order", w.name, len(seen))
	}
}

func firstDifference(a, b []event) int {
	for i := range max(len(a), len(b)) {
		if i >= len(a) || i >= len(b) || a[i] != b[i] {
			return i
		}
	}
	return -1
}

func at(events []event, i int) any {
	if i < len(events) {
		return events[i]
	}
	return "nothing"
}
