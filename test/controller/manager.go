package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/recorder"
)

// managerFlags say which kind the manager reconciles.
type managerFlags struct {
	group, version, kind string
}

func (m *managerFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&m.group, "group", "shop.example.com", "API group of the reconciled kind")
	fs.StringVar(&m.version, "version", "v1", "API version of the reconciled kind")
	fs.StringVar(&m.kind, "kind", "Widget", "the reconciled kind, which must have a status subresource")
}

// runManager runs a controller-runtime Manager with leader election on a
// Lease and one controller, until ctx ends.
func runManager(ctx context.Context, log *slog.Logger, cfg *rest.Config, c common, m managerFlags) error {
	ctrl.SetLogger(logr.FromSlogHandler(log.Handler()))
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{
		LeaderElection:          true,
		LeaderElectionID:        c.name,
		LeaderElectionNamespace: c.namespace,
		LeaseDuration:           &c.lease,
		RenewDeadline:           &c.renew,
		RetryPeriod:             &c.retry,
		// Two managers run side by side on one machine: no metrics port.
		Metrics: metricsserver.Options{BindAddress: "0"},
	})
	if err != nil {
		return fmt.Errorf("manager: %w", err)
	}
	gvk := schema.GroupVersionKind{Group: m.group, Version: m.version, Kind: m.kind}
	r := &statusWriter{client: mgr.GetClient(), events: mgr.GetEventRecorder("specd-e2e-controller"), gvk: gvk, identity: c.identity, log: log}
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(gvk)
	if err := ctrl.NewControllerManagedBy(mgr).For(obj).Complete(r); err != nil {
		return fmt.Errorf("controller: %w", err)
	}
	go func() {
		select {
		case <-mgr.Elected():
			log.Info("became leader")
		case <-ctx.Done():
		}
	}()
	return mgr.Start(ctx)
}

// statusWriter reconciles objects of one kind: it writes their status
// (observedGeneration, phase Ready and a Ready condition) and records an
// Event on each.
type statusWriter struct {
	client   client.Client
	events   recorder.EventRecorder
	gvk      schema.GroupVersionKind
	identity string
	log      *slog.Logger
}

func (r *statusWriter) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	obj := &unstructured.Unstructured{}
	obj.SetGroupVersionKind(r.gvk)
	if err := r.client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get %s: %w", req, err)
	}
	if observed, _, _ := unstructured.NestedInt64(obj.Object, "status", "observedGeneration"); observed == obj.GetGeneration() {
		return ctrl.Result{}, nil
	}
	if err := r.setStatus(obj); err != nil {
		return ctrl.Result{}, err
	}
	if err := r.client.Status().Update(ctx, obj); err != nil {
		return ctrl.Result{}, fmt.Errorf("update status of %s: %w", req, err)
	}
	r.events.Eventf(obj, nil, corev1.EventTypeNormal, "Reconciled", "Reconcile",
		"generation %d reconciled by %s", obj.GetGeneration(), r.identity)
	r.log.Info("reconciled", "object", req.String(), "generation", obj.GetGeneration())
	return ctrl.Result{}, nil
}

func (r *statusWriter) setStatus(obj *unstructured.Unstructured) error {
	status := map[string]any{
		"observedGeneration": obj.GetGeneration(),
		"phase":              "Ready",
		"conditions": []any{map[string]any{
			"type":               "Ready",
			"status":             "True",
			"reason":             "Reconciled",
			"message":            "reconciled by " + r.identity,
			"lastTransitionTime": time.Now().UTC().Format(time.RFC3339),
		}},
	}
	if err := unstructured.SetNestedField(obj.Object, status, "status"); err != nil {
		return fmt.Errorf("set status: %w", err)
	}
	return nil
}
