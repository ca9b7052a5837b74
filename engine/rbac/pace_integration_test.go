package rbac_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/schemas"
)

// slowWriter is a Store whose every Update takes delay longer, as the
// writes of roles that list thousands of resources do, and records when
// each object was updated, by name.
type slowWriter struct {
	engine.ReadWriter
	delay time.Duration

	mu      sync.Mutex
	updates map[string][]time.Time
}

func (w *slowWriter) Update(ctx context.Context, req engine.WriteRequest) (engine.Result, error) {
	w.mu.Lock()
	if w.updates == nil {
		w.updates = map[string][]time.Time{}
	}
	w.updates[req.Ref.Name] = append(w.updates[req.Ref.Name], time.Now())
	w.mu.Unlock()
	time.Sleep(w.delay)
	return w.ReadWriter.Update(ctx, req)
}

// since is when name was updated from start on.
func (w *slowWriter) since(name string, start time.Time) []time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	var at []time.Time
	for _, t := range w.updates[name] {
		if !t.Before(start) {
			at = append(at, t)
		}
	}
	return at
}

// burst is how many changes the burst tests make, burstGap apart: more
// than the 50 ms the Aggregator waits for the changes of one reload, so
// that only the pacing joins them; slowWrite is how much longer each
// write of a role takes. Unpaced, a pass follows every change or two.
const (
	burst     = 30
	burstGap  = 60 * time.Millisecond
	slowWrite = 20 * time.Millisecond
)

// checkPaced checks that the writes of a role, made by passes that each
// write roles roles one after another, came far fewer than the changes,
// and that each came at least three passes after the one before, and
// at least rbac.BurstGap: a pass lasts at least roles × slowWrite, and
// the next waits three times that after its end (background's
// paceFactor), and no less than the gap.
func checkPaced(t *testing.T, name string, at []time.Time, roles int) {
	t.Helper()
	gap := max(3*time.Duration(roles)*slowWrite, rbac.BurstGap)
	for i := 1; i < len(at); i++ {
		if d := at[i].Sub(at[i-1]); d < gap {
			t.Errorf("%s written %v after the write before, want at least %v (its writes: %d)", name, d.Round(time.Millisecond), gap, len(at))
		}
	}
	if len(at) > burst/2 {
		t.Errorf("%s written %d times for %d changes, want far fewer", name, len(at), burst)
	}
}

// groupRules are the rules of n groups of the view schema role.
func groupRules(n int) []rbacv1.PolicyRule {
	var rules []rbacv1.PolicyRule
	for i := range n {
		rules = append(rules, rbacv1.PolicyRule{Verbs: []string{"get", "list", "watch"},
			APIGroups: []string{fmt.Sprintf("g%d.example.com", i)}, Resources: []string{"things"}})
	}
	return rules
}

// TestAggregationPacedInBurst: a burst of changes to a role that view
// aggregates, as CRDs created one after another make of the schema role,
// has view written far fewer times than the role changed, each write
// paced by the duration of the pass before, and view ends with exactly
// the rules it gathers.
func TestAggregationPacedInBurst(t *testing.T) {
	w := &slowWriter{delay: slowWrite}
	e := newEnvAggregating(t, func(s *engine.Store) engine.Writer { w.ReadWriter = s; return w })
	e.mustCreate(t, "rolebindings", "a", binding("a", "viewer", "ClusterRole", "view", viewer.Name))
	eventually(t, "view aggregated", func() bool { return e.allowed(viewer, "list", "tools.example.com", "hammers", "a") })
	before := e.clusterRoleRules(t, "view")
	start := time.Now()
	for i := range burst {
		role := &rbacv1.ClusterRole{TypeMeta: metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"}, ObjectMeta: metav1.ObjectMeta{Name: "burst",
			Labels: map[string]string{rbac.AggregateToView: "true"}, Annotations: map[string]string{rbac.AutoUpdate: "true"}},
			Rules: groupRules(i + 1)}
		if err := rbac.Reconcile(context.Background(), e.store, e.reg, rbac.Policy{Exact: true, ClusterRoles: []*rbacv1.ClusterRole{role}}); err != nil {
			t.Fatal(err)
		}
		time.Sleep(burstGap)
	}
	// view gathers its roles in name order: burst, specd:aggregate-to-view, system:aggregate-to-view.
	want := append(groupRules(burst), before...)
	eventually(t, "view's rules exact", func() bool { return equality.Semantic.DeepEqual(e.clusterRoleRules(t, "view"), want) })
	eventually(t, "view grants the last group's things", func() bool {
		return e.allowed(viewer, "watch", fmt.Sprintf("g%d.example.com", burst-1), "things", "a")
	})
	// A pass writes view, edit and admin.
	checkPaced(t, "view", w.since("view", start), 3)
}

var viewer = &user.DefaultInfo{Name: "vic", Groups: []string{user.AllAuthenticated}}

// TestSchemaRolesPacedInBurst: reloads in a burst, each serving one more
// group, have the schema roles written far fewer times than they came,
// paced, and leave the roles of the last reload.
func TestSchemaRolesPacedInBurst(t *testing.T) {
	e := newEnv(t)
	w := &slowWriter{ReadWriter: e.store, delay: slowWrite}
	p := rbac.NewPolicyWriter(w, slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); p.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	var reg *schemas.Registry
	start := time.Now()
	for i := range burst {
		reg = withGroups(e.reg, i+1)
		p.AfterSwap(ctx, e.reg, reg)
		time.Sleep(burstGap)
	}
	for _, want := range rbac.SchemaPolicy(reg).ClusterRoles {
		eventually(t, want.Name+"'s rules exact", func() bool {
			return equality.Semantic.DeepEqual(e.clusterRoleRules(t, want.Name), want.Rules)
		})
		// A pass writes the view and the edit schema roles.
		checkPaced(t, want.Name, w.since(want.Name, start), 2)
	}
}

// withGroups is reg with n more groups of one resource each.
func withGroups(reg *schemas.Registry, n int) *schemas.Registry {
	groups := append([]*schemas.Group{}, reg.Groups()...)
	for i := range n {
		name := fmt.Sprintf("g%d.example.com", i)
		things := &schemas.Resource{Group: name, Plural: "things", Kind: "Thing", Scope: schemas.Namespaced}
		things.Versions = []*schemas.ResourceVersion{{Resource: things, Version: "v1"}}
		groups = append(groups, &schemas.Group{Name: name, Resources: []*schemas.Resource{things}})
	}
	return schemas.NewRegistry(groups)
}

// clusterRoleRules reads the rules of the stored ClusterRole name.
func (e *env) clusterRoleRules(t *testing.T, name string) []rbacv1.PolicyRule {
	t.Helper()
	data, err := e.store.Get(context.Background(), engine.Ref{Version: e.rv("clusterroles"), Name: name})
	if err != nil {
		t.Fatal(err)
	}
	var cr rbacv1.ClusterRole
	if err := json.Unmarshal(data, &cr); err != nil {
		t.Fatal(err)
	}
	return cr.Rules
}
