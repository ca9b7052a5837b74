package rootca

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/tidwall/gjson"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/util/workqueue"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/engine/informer"
	"github.com/specd-io/specd/engine/namespace"
	"github.com/specd-io/specd/schemas"
)

// The ConfigMap, as kube-controller-manager writes it.
const (
	Name        = "kube-root-ca.crt"
	Key         = "ca.crt"
	Description = "kubernetes.io/description"
	description = "Contains a CA bundle that can be used to verify the kube-apiserver when using internal endpoints such as the internal service IP or kubernetes.default.svc. No other usage is guaranteed across distributions of Kubernetes clusters."
)

// FieldManager names the publisher's writes in managedFields.
const FieldManager = "specd-root-ca-cert-publisher"

// Config configures a Publisher.
type Config struct {
	Store engine.Objects
	// Registry returns the current registry, where the Namespace and
	// ConfigMap resources are looked up.
	Registry func() *schemas.Registry
	// CA is the PEM bundle to publish.
	CA     []byte
	Logger *slog.Logger
	// RateLimiter spaces the retries of a namespace whose write failed;
	// 50 ms doubling to 5 s when nil.
	RateLimiter workqueue.TypedRateLimiter[string]
}

// Publisher keeps kube-root-ca.crt in every namespace.
type Publisher struct {
	cfg Config
	log *slog.Logger
}

var _ background.Job = (*Publisher)(nil)

// New returns a Publisher; Run runs it.
func New(cfg Config) *Publisher {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.RateLimiter == nil {
		cfg.RateLimiter = workqueue.NewTypedItemExponentialFailureRateLimiter[string](50*time.Millisecond, 5*time.Second)
	}
	return &Publisher{cfg: cfg, log: cfg.Logger.With("controller", "root-ca-cert-publisher")}
}

// Run publishes until ctx ends. It may run again (a replica that leads
// again): every namespace is looked at anew.
func (p *Publisher) Run(ctx context.Context) {
	queue := workqueue.NewTypedRateLimitingQueueWithConfig(p.cfg.RateLimiter, workqueue.TypedRateLimitingQueueConfig[string]{Name: "root-ca"})
	var wg sync.WaitGroup
	p.follow(ctx, &wg, "namespaces", func() *schemas.ResourceVersion { return namespace.Resource(p.cfg.Registry()) },
		func(md gjson.Result) string { return md.Get("name").Str }, queue)
	p.follow(ctx, &wg, "configmaps", p.configMaps, func(md gjson.Result) string {
		if md.Get("name").Str != Name {
			return ""
		}
		return md.Get("namespace").Str
	}, queue)
	wg.Go(func() {
		for p.processNext(ctx, queue) {
		}
	})
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
}

// follow watches a resource and queues the namespace that nsOf finds in
// each object's metadata ("" for none).
func (p *Publisher) follow(ctx context.Context, wg *sync.WaitGroup, name string, rv func() *schemas.ResourceVersion,
	nsOf func(gjson.Result) string, queue workqueue.TypedRateLimitingInterface[string]) {
	wg.Go(func() {
		informer.Run(ctx, informer.Config{Store: p.cfg.Store, Resource: rv, Name: name, Logger: p.log,
			Feed: informer.FeedFunc(func(ev engine.WatchEvent) {
				if ns := nsOf(gjson.GetBytes(ev.Object, "metadata")); ns != "" {
					queue.Add(ns)
				}
			})})
	})
}

// configMaps is the storage version of ConfigMaps; nil when not served.
func (p *Publisher) configMaps() *schemas.ResourceVersion {
	return p.cfg.Registry().ServedStorage("configmaps")
}

// processNext syncs one namespace; false once the queue is shut down.
func (p *Publisher) processNext(ctx context.Context, queue workqueue.TypedRateLimitingInterface[string]) bool {
	ns, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(ns)
	switch err := p.sync(ctx, ns); {
	case ctx.Err() != nil:
	case err != nil:
		p.log.Warn("publishing the root CA failed; retrying", "namespace", ns, "err", err)
		queue.AddRateLimited(ns)
	default:
		queue.Forget(ns)
	}
	return true
}

// sync makes the ConfigMap of namespace ns hold the CA, unless ns is gone
// or being deleted.
func (p *Publisher) sync(ctx context.Context, ns string) error {
	nsv, cmv := namespace.Resource(p.cfg.Registry()), p.configMaps()
	if nsv == nil || cmv == nil {
		return nil
	}
	obj, err := p.cfg.Store.Get(ctx, engine.Ref{Version: nsv, Name: ns})
	if apierrors.IsNotFound(err) || err == nil && gjson.GetBytes(obj, "metadata.deletionTimestamp").Exists() {
		return nil
	}
	if err != nil {
		return err
	}
	ref := engine.Ref{Version: cmv, Namespace: ns, Name: Name}
	cm, err := p.cfg.Store.Get(ctx, ref)
	switch {
	case apierrors.IsNotFound(err):
		return p.write(ctx, ref, nil)
	case err != nil:
		return err
	case p.holdsCA(cm):
		return nil
	}
	return p.write(ctx, ref, cm)
}

// holdsCA reports whether the ConfigMap cm is as the publisher writes
// it: the CA alone in its data, and described.
func (p *Publisher) holdsCA(cm []byte) bool {
	data := gjson.GetBytes(cm, "data").Map()
	return len(data) == 1 && data[Key].Str == string(p.cfg.CA) && gjson.GetBytes(cm, "metadata.annotations."+gjson.Escape(Description)).Str != ""
}

// write creates the ConfigMap ref names (old nil), or puts the CA and the
// description back into old, keeping its other metadata.
func (p *Publisher) write(ctx context.Context, ref engine.Ref, old []byte) error {
	body, err := p.body(ref, old)
	if err != nil {
		return err
	}
	opts := engine.WriteOptions{FieldManager: FieldManager}
	if old == nil {
		_, err = p.cfg.Store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: ref.Version, Namespace: ref.Namespace}, Body: body, Options: opts})
		if apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("created meanwhile: %w", err) // looked at again
		}
	} else {
		_, err = p.cfg.Store.Update(ctx, engine.WriteRequest{Ref: ref, Body: body, Options: opts})
	}
	return err
}

// body is the ConfigMap to write: old's metadata, or new metadata, with
// the description, and the CA as its only data.
func (p *Publisher) body(ref engine.Ref, old []byte) ([]byte, error) {
	meta := map[string]any{"name": ref.Name, "namespace": ref.Namespace}
	if old != nil {
		if err := json.Unmarshal([]byte(gjson.GetBytes(old, "metadata").Raw), &meta); err != nil {
			return nil, fmt.Errorf("the stored ConfigMap's metadata: %w", err)
		}
	}
	annotations, _ := meta["annotations"].(map[string]any)
	if annotations == nil {
		annotations = map[string]any{}
	}
	annotations[Description] = description
	meta["annotations"] = annotations
	var buf bytes.Buffer
	err := json.NewEncoder(&buf).Encode(map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": meta, "data": map[string]string{Key: string(p.cfg.CA)}})
	return buf.Bytes(), err
}
