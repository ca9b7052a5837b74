package apiservices

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset/typed/apiregistration/v1"

	"github.com/specd-io/specd/schemas"
)

// syncTimeout bounds one sync with the host.
const syncTimeout = 30 * time.Second

// Registrar keeps the host's APIServices in step with the schemas.
type Registrar struct {
	client apiregistrationclient.APIServiceInterface
	cfg    Config
	log    *slog.Logger
}

// NewRegistrar writes through client, which speaks to the host.
func NewRegistrar(client apiregistrationclient.APIServiceInterface, cfg Config, log *slog.Logger) *Registrar {
	return &Registrar{client: client, cfg: cfg, log: log}
}

// Sync makes the host's APIServices labelled for this Service those of
// reg: it creates or updates each, then deletes the ones no longer
// served. It goes on past a failure and returns every error.
func (r *Registrar) Sync(ctx context.Context, reg *schemas.Registry) error {
	ctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	want := Manifests(reg, r.cfg)
	names := map[string]bool{}
	var errs []error
	for i := range want {
		names[want[i].Name] = true
		if err := r.put(ctx, &want[i]); err != nil {
			errs = append(errs, err)
		}
	}
	if err := r.withdraw(ctx, names); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// put creates s, or updates the APIService of its name to it.
func (r *Registrar) put(ctx context.Context, s *apiregistrationv1.APIService) error {
	have, err := r.client.Get(ctx, s.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		if _, err := r.client.Create(ctx, s, metav1.CreateOptions{FieldManager: ManagedBy}); err != nil {
			return fmt.Errorf("apiservices: create %s: %w", s.Name, err)
		}
		r.log.Info("APIService created", "name", s.Name)
		return nil
	}
	if err != nil {
		return fmt.Errorf("apiservices: get %s: %w", s.Name, err)
	}
	if same(have, s) {
		return nil
	}
	next := have.DeepCopy()
	next.Labels, next.Spec = s.Labels, s.Spec
	if _, err := r.client.Update(ctx, next, metav1.UpdateOptions{FieldManager: ManagedBy}); err != nil {
		return fmt.Errorf("apiservices: update %s: %w", s.Name, err)
	}
	r.log.Info("APIService updated", "name", s.Name)
	return nil
}

// same reports whether have already says what want does.
func same(have, want *apiregistrationv1.APIService) bool {
	if !labels.Equals(have.Labels, want.Labels) || have.Spec.Service == nil || want.Spec.Service == nil {
		return false
	}
	h, w := have.Spec, want.Spec
	hs, ws := *h.Service, *w.Service
	return h.Group == w.Group && h.Version == w.Version && string(h.CABundle) == string(w.CABundle) &&
		h.InsecureSkipTLSVerify == w.InsecureSkipTLSVerify && h.GroupPriorityMinimum == w.GroupPriorityMinimum &&
		h.VersionPriority == w.VersionPriority && hs.Namespace == ws.Namespace && hs.Name == ws.Name &&
		hs.Port != nil && ws.Port != nil && *hs.Port == *ws.Port
}

// withdraw deletes this Service's APIServices whose names are not keep.
func (r *Registrar) withdraw(ctx context.Context, keep map[string]bool) error {
	selector := labels.SelectorFromSet(labels.Set{ManagedByLabel: ManagedBy, ServiceLabel: r.cfg.serviceLabel()}).String()
	list, err := r.client.List(ctx, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return fmt.Errorf("apiservices: list: %w", err)
	}
	var errs []error
	for _, s := range list.Items {
		if keep[s.Name] {
			continue
		}
		uid := s.UID
		err := r.client.Delete(ctx, s.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("apiservices: delete %s: %w", s.Name, err))
			continue
		}
		r.log.Info("APIService withdrawn", "name", s.Name)
	}
	return errors.Join(errs...)
}

// BeforeSwap implements serving.Follower: the host learns of a reload
// once it is served, never before.
func (r *Registrar) BeforeSwap(context.Context, *schemas.Registry, *schemas.Registry) error {
	return nil
}

// AfterSwap implements serving.Follower. A failure is logged; the next
// reload, or Run's next round, tries again.
func (r *Registrar) AfterSwap(ctx context.Context, _, next *schemas.Registry) {
	if err := r.Sync(ctx, next); err != nil {
		r.log.Error("register the APIServices after a schema reload", "err", err)
	}
}

// Run syncs with current() at once and then every interval until ctx
// ends, so that an APIService someone deleted or changed comes back, and
// a host that was down when specd started or reloaded is caught up.
func (r *Registrar) Run(ctx context.Context, current func() *schemas.Registry, interval time.Duration) {
	for {
		if err := r.Sync(ctx, current()); err != nil && ctx.Err() == nil {
			r.log.Error("register the APIServices", "err", err)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
	}
}
