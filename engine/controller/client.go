package controller

import (
	"context"
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// Client is what reconcilers read and write through: the Store, with
// resources named as in a URL and looked up in the current registry. Its
// writes go through the whole write path, plugins included, and are
// recorded in managedFields as the ClientFieldManager's. Every error is a
// *apierrors.StatusError, so a plugin gets the code and reason a REST
// client would.
//
// With an Authorizer (WithAuthorizer), every call is first authorized for
// the user in its context, which the plugin host sets to the plugin's own
// (system:plugin:NAME); the same context carries the user on into the
// Store, so that admission plugins and audit see who wrote.
type Client struct {
	store    engine.Objects
	registry func() *schemas.Registry
	authz    Authorizer // nil: allow everything
}

// ClientFieldManager names reconcilers' writes in managedFields.
const ClientFieldManager = "specd-reconciler"

// NewClient returns a Client of store, for the resources of the current
// registry snapshot.
func NewClient(store engine.Objects, registry func() *schemas.Registry) *Client {
	return &Client{store: store, registry: registry}
}

// lookup authorizes cl on r, then finds the served resource r names, as
// the server authorizes a request and then routes its URL (so a call not
// allowed is refused whether or not the resource exists).
func (c *Client) lookup(ctx context.Context, r hook.ResourceRef, cl call) (*schemas.ResourceVersion, error) {
	if err := c.authorize(ctx, r, cl); err != nil {
		return nil, err
	}
	if rv := c.registry().Lookup(r.Group, r.Version, r.Resource); rv != nil {
		return rv, nil
	}
	return nil, apierrors.FromObject(&metav1.Status{Status: metav1.StatusFailure, Code: http.StatusNotFound,
		Reason: metav1.StatusReasonNotFound, Message: "the server could not find the requested resource"})
}

func writeOpts() engine.WriteOptions { return engine.WriteOptions{FieldManager: ClientFieldManager} }

// Get returns one object.
func (c *Client) Get(ctx context.Context, r hook.ResourceRef, namespace, name string) ([]byte, error) {
	rv, err := c.lookup(ctx, r, call{verb: "get", namespace: namespace, name: name})
	if err != nil {
		return nil, err
	}
	out, err := c.store.Get(ctx, engine.Ref{Version: rv, Namespace: namespace, Name: name})
	return out, statusError(err)
}

// List returns a <Kind>List of the objects in namespace ("" for all) that
// match labelSelector.
func (c *Client) List(ctx context.Context, r hook.ResourceRef, namespace, labelSelector string) ([]byte, error) {
	rv, err := c.lookup(ctx, r, call{verb: "list", namespace: namespace})
	if err != nil {
		return nil, err
	}
	sel, err := engine.ParseSelector(rv, labelSelector, "")
	if err != nil {
		return nil, err
	}
	out, err := c.store.List(ctx, engine.Ref{Version: rv, Namespace: namespace}, engine.ListRequest{Selector: sel})
	return out, statusError(err)
}

// Create stores a new object.
func (c *Client) Create(ctx context.Context, r hook.ResourceRef, namespace string, obj []byte) ([]byte, error) {
	rv, err := c.lookup(ctx, r, call{verb: "create", namespace: namespace})
	if err != nil {
		return nil, err
	}
	res, err := c.store.Create(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: namespace}, Body: obj, Options: writeOpts()})
	return res.Object, statusError(err)
}

// Update replaces an object; obj carries its resourceVersion.
func (c *Client) Update(ctx context.Context, r hook.ResourceRef, namespace, name string, obj []byte) ([]byte, error) {
	rv, err := c.lookup(ctx, r, call{verb: "update", namespace: namespace, name: name})
	if err != nil {
		return nil, err
	}
	res, err := c.store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: namespace, Name: name}, Body: obj, Options: writeOpts()})
	return res.Object, statusError(err)
}

// UpdateStatus replaces an object's status.
func (c *Client) UpdateStatus(ctx context.Context, r hook.ResourceRef, namespace, name string, obj []byte) ([]byte, error) {
	rv, err := c.lookup(ctx, r, call{verb: "update", namespace: namespace, name: name, sub: "status"})
	if err != nil {
		return nil, err
	}
	res, err := c.store.Update(ctx, engine.WriteRequest{Ref: engine.Ref{Version: rv, Namespace: namespace, Name: name, Subresource: "status"}, Body: obj, Options: writeOpts()})
	return res.Object, statusError(err)
}

// Patch patches an object, or its "status" subresource. patchType is a
// patch media type (application/merge-patch+json, ...) or its short name
// as kubectl --type takes it (merge, json, apply). An apply takes the
// fields it sets from other managers (force).
func (c *Client) Patch(ctx context.Context, r hook.ResourceRef, namespace, name, patchType string, patch []byte, subresource string) ([]byte, error) {
	rv, err := c.lookup(ctx, r, call{verb: "patch", namespace: namespace, name: name, sub: subresource})
	if err != nil {
		return nil, err
	}
	pt := engine.PatchType(patchType)
	switch patchType {
	case "merge":
		pt = engine.MergePatchType
	case "json":
		pt = engine.JSONPatchType
	case "apply":
		pt = engine.ApplyPatchType
	}
	opts := engine.PatchOptions{WriteOptions: writeOpts(), Force: pt == engine.ApplyPatchType}
	ref := engine.Ref{Version: rv, Namespace: namespace, Name: name, Subresource: subresource}
	res, err := c.store.Patch(ctx, engine.PatchRequest{Ref: ref, Type: pt, Patch: patch, Options: opts})
	return res.Object, statusError(err)
}

// Delete deletes an object; propagationPolicy is Background (when
// empty), Foreground or Orphan.
func (c *Client) Delete(ctx context.Context, r hook.ResourceRef, namespace, name, propagationPolicy string) error {
	rv, err := c.lookup(ctx, r, call{verb: "delete", namespace: namespace, name: name})
	if err != nil {
		return err
	}
	var opts engine.DeleteOptions
	switch p := metav1.DeletionPropagation(propagationPolicy); p {
	case "", metav1.DeletePropagationBackground, metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan:
		opts.PropagationPolicy = p
	default:
		return apierrors.NewBadRequest("propagationPolicy " + propagationPolicy + ": must be Background, Foreground or Orphan")
	}
	_, err = c.store.Delete(ctx, engine.Ref{Version: rv, Namespace: namespace, Name: name}, opts)
	return statusError(err)
}

// statusError makes sure err is a Status error, which plugins read: the
// Store answers a failure of its own (storage, encoding) as a plain
// wrapped error, which becomes a 500 InternalError here.
func statusError(err error) error {
	if err == nil {
		return nil
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return err
	}
	return apierrors.NewInternalError(err)
}

// Reconcile plugins call back through the plugin host to a Client.
var _ hook.Callbacks = (*Client)(nil)
