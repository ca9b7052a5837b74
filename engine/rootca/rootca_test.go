package rootca_test

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/tidwall/gjson"
	clientv3 "go.etcd.io/etcd/client/v3"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
	"github.com/specd-io/specd/engine/rootca"
	"github.com/specd-io/specd/engine/watchcache"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/schemas/builtin"
)

var testClient *clientv3.Client

func TestMain(m *testing.M) {
	os.Exit(etcdtest.Main(m, func(c *clientv3.Client) { testClient = c }))
}

const ca = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"

// env is a Store on the test etcd serving the built-in groups.
type env struct {
	reg   *schemas.Registry
	store *engine.Store
}

func newEnv(t *testing.T) *env {
	t.Helper()
	reg, _, err := schemas.NewLoader(t.TempDir(), builtin.Schemas()).Load()
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.DiscardHandler)
	st := etcdstorage.New(testClient)
	caches := watchcache.New(st, watchcache.Config{Logger: quiet})
	t.Cleanup(caches.Close)
	keys := engine.Keys{Prefix: "/" + t.Name() + "/"}
	return &env{reg: reg, store: engine.NewStore(st, engine.Options{Keys: keys, Cache: watchcache.NewServed(caches, keys.Resource), Logger: quiet})}
}

func (e *env) ref(plural, ns, name string) engine.Ref {
	r := e.reg.Resource(plural)
	return engine.Ref{Version: r.Version(r.StorageVersion), Namespace: ns, Name: name}
}

func (e *env) mustCreate(t *testing.T, plural, ns, body string) {
	t.Helper()
	if _, err := e.store.Create(context.Background(), engine.WriteRequest{Ref: e.ref(plural, ns, ""), Body: []byte(body)}); err != nil {
		t.Fatal(err)
	}
}

// published is the CA of namespace ns's kube-root-ca.crt, "" for none.
func (e *env) published(t *testing.T, ns string) string {
	t.Helper()
	cm, err := e.store.Get(context.Background(), e.ref("configmaps", ns, rootca.Name))
	if apierrors.IsNotFound(err) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	if gjson.GetBytes(cm, "metadata.annotations."+gjson.Escape(rootca.Description)).Str == "" || len(gjson.GetBytes(cm, "data").Map()) != 1 {
		return "not as published: " + string(cm)
	}
	return gjson.GetBytes(cm, "data."+gjson.Escape(rootca.Key)).Str
}

func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("never %s", what)
		}
	}
}

// TestPublisher: every namespace gets the CA, a new one too; a deleted or
// changed ConfigMap is written back; a namespace being deleted gets none.
func TestPublisher(t *testing.T) {
	e := newEnv(t)
	e.mustCreate(t, "namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}`)
	e.mustCreate(t, "namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"leaving","finalizers":["example.com/hold"]}}`)
	if _, err := e.store.Delete(context.Background(), e.ref("namespaces", "", "leaving"), engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := rootca.New(rootca.Config{Store: e.store, Registry: func() *schemas.Registry { return e.reg }, CA: []byte(ca),
		Logger: slog.New(slog.DiscardHandler), RateLimiter: workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, 50*time.Millisecond)})
	done := make(chan struct{})
	go func() { p.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); <-done })

	eventually(t, "team-a's CA published", func() bool { return e.published(t, "team-a") == ca })
	e.mustCreate(t, "namespaces", "", `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-b"}}`)
	eventually(t, "a new namespace's CA published", func() bool { return e.published(t, "team-b") == ca })

	if _, err := e.store.Delete(context.Background(), e.ref("configmaps", "team-a", rootca.Name), engine.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a deleted ConfigMap back", func() bool { return e.published(t, "team-a") == ca })
	changed := `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt","namespace":"team-a","labels":{"mine":"yes"}},"data":{"ca.crt":"other"}}`
	if _, err := e.store.Update(context.Background(), engine.WriteRequest{Ref: e.ref("configmaps", "team-a", rootca.Name), Body: []byte(changed)}); err != nil {
		t.Fatal(err)
	}
	eventually(t, "a changed ConfigMap written back", func() bool { return e.published(t, "team-a") == ca })
	cm, _ := e.store.Get(context.Background(), e.ref("configmaps", "team-a", rootca.Name))
	if gjson.GetBytes(cm, "metadata.labels.mine").Str != "yes" {
		t.Errorf("the ConfigMap written back lost its labels: %s", cm)
	}
	if got := e.published(t, "leaving"); got != "" {
		t.Errorf("a namespace being deleted got the ConfigMap: %q", got)
	}
}
