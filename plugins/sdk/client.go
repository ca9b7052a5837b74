package sdk

import (
	"context"
	"encoding/json"
	"fmt"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// Resource names a resource as a REST client does: group ("" for none),
// version and the plural, lower-case resource name.
type Resource struct {
	Group, Version, Resource string
}

// PatchType is the Content-Type of a patch.
type PatchType string

const (
	MergePatch PatchType = "application/merge-patch+json"
	JSONPatch  PatchType = "application/json-patch+json"
)

// Client reads and writes objects through specd, with the same admission,
// validation and conflicts as any client. Its errors from specd are
// *StatusError: test them with IsNotFound, IsConflict and the like.
//
// It is an interface so that a plugin's tests can give a reconciler a fake.
type Client interface {
	Get(ctx context.Context, r Resource, namespace, name string) (*Object, error)
	// List lists the objects in namespace ("" for all) that match
	// labelSelector ("" for all).
	List(ctx context.Context, r Resource, namespace, labelSelector string) ([]*Object, error)
	// Create creates obj in its metadata.namespace.
	Create(ctx context.Context, r Resource, obj *Object) (*Object, error)
	// Update replaces obj; its metadata.resourceVersion, if set, must be the
	// stored one (else IsConflict).
	Update(ctx context.Context, r Resource, obj *Object) (*Object, error)
	// UpdateStatus replaces obj's status through the status subresource.
	UpdateStatus(ctx context.Context, r Resource, obj *Object) (*Object, error)
	// Patch patches the object, or its subresource ("status") if one is
	// given.
	Patch(ctx context.Context, r Resource, namespace, name string, pt PatchType, patch []byte, subresource ...string) (*Object, error)
	Delete(ctx context.Context, r Resource, namespace, name string, opts ...DeleteOption) error
}

// DeleteOption changes how Client.Delete deletes.
type DeleteOption func(*deleteOptions)

type deleteOptions struct{ propagation string }

// PropagationPolicy sets the deletion's propagationPolicy: "Orphan",
// "Background" or "Foreground".
func PropagationPolicy(policy string) DeleteOption {
	return func(o *deleteOptions) { o.propagation = policy }
}

// hostClient is the Client over the broker connection to specd.
type hostClient struct {
	rpc pluginv1.HostClient
}

var _ Client = (*hostClient)(nil)

func ref(r Resource) *pluginv1.ResourceRef {
	return &pluginv1.ResourceRef{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

func (c *hostClient) Get(ctx context.Context, r Resource, namespace, name string) (*Object, error) {
	resp, err := c.rpc.Get(ctx, &pluginv1.GetRequest{Resource: ref(r), Namespace: namespace, Name: name})
	return answer("get", resp, err)
}

func (c *hostClient) List(ctx context.Context, r Resource, namespace, labelSelector string) ([]*Object, error) {
	resp, err := c.rpc.List(ctx, &pluginv1.ListRequest{Resource: ref(r), Namespace: namespace, LabelSelector: labelSelector})
	list, err := answer("list", resp, err)
	if err != nil {
		return nil, err
	}
	var items []json.RawMessage
	if err := list.Decode("items", &items); err != nil {
		return nil, fmt.Errorf("list %s: %w", r.Resource, err)
	}
	objs := make([]*Object, 0, len(items))
	for _, item := range items {
		o, err := ParseObject(item)
		if err != nil {
			return nil, fmt.Errorf("list %s: item: %w", r.Resource, err)
		}
		objs = append(objs, o)
	}
	return objs, nil
}

func (c *hostClient) Create(ctx context.Context, r Resource, obj *Object) (*Object, error) {
	resp, err := c.rpc.Create(ctx, &pluginv1.CreateRequest{Resource: ref(r), Namespace: obj.Namespace(), Object: obj.JSON()})
	return answer("create", resp, err)
}

func (c *hostClient) Update(ctx context.Context, r Resource, obj *Object) (*Object, error) {
	resp, err := c.rpc.Update(ctx, &pluginv1.UpdateRequest{Resource: ref(r), Namespace: obj.Namespace(), Name: obj.Name(), Object: obj.JSON()})
	return answer("update", resp, err)
}

func (c *hostClient) UpdateStatus(ctx context.Context, r Resource, obj *Object) (*Object, error) {
	resp, err := c.rpc.UpdateStatus(ctx, &pluginv1.UpdateRequest{Resource: ref(r), Namespace: obj.Namespace(), Name: obj.Name(), Object: obj.JSON()})
	return answer("update status", resp, err)
}

func (c *hostClient) Patch(ctx context.Context, r Resource, namespace, name string, pt PatchType, patch []byte, subresource ...string) (*Object, error) {
	req := &pluginv1.PatchRequest{Resource: ref(r), Namespace: namespace, Name: name, PatchType: string(pt), Patch: patch}
	if len(subresource) > 0 {
		req.Subresource = subresource[0]
	}
	resp, err := c.rpc.Patch(ctx, req)
	return answer("patch", resp, err)
}

func (c *hostClient) Delete(ctx context.Context, r Resource, namespace, name string, opts ...DeleteOption) error {
	var o deleteOptions
	for _, opt := range opts {
		opt(&o)
	}
	resp, err := c.rpc.Delete(ctx, &pluginv1.DeleteRequest{Resource: ref(r), Namespace: namespace, Name: name, PropagationPolicy: o.propagation})
	if err != nil {
		return fmt.Errorf("delete: %w", err)
	}
	return statusError(resp.GetStatus())
}

// answer turns a Host response into an object or a *StatusError.
func answer(verb string, resp *pluginv1.ObjectResponse, err error) (*Object, error) {
	if err != nil {
		return nil, fmt.Errorf("%s: %w", verb, err)
	}
	if err := statusError(resp.GetStatus()); err != nil {
		return nil, err
	}
	obj, err := ParseObject(resp.GetObject())
	if err != nil {
		return nil, fmt.Errorf("%s: answer: %w", verb, err)
	}
	return obj, nil
}

// noHost is the Client of a plugin that specd gave no Host service.
type noHost struct{}

func (noHost) err() error {
	return &StatusError{Code: 503, Reason: "ServiceUnavailable", Message: "specd serves no host service to this plugin"}
}
func (n noHost) Get(context.Context, Resource, string, string) (*Object, error) { return nil, n.err() }
func (n noHost) List(context.Context, Resource, string, string) ([]*Object, error) {
	return nil, n.err()
}
func (n noHost) Create(context.Context, Resource, *Object) (*Object, error) { return nil, n.err() }
func (n noHost) Update(context.Context, Resource, *Object) (*Object, error) { return nil, n.err() }
func (n noHost) UpdateStatus(context.Context, Resource, *Object) (*Object, error) {
	return nil, n.err()
}
func (n noHost) Patch(context.Context, Resource, string, string, PatchType, []byte, ...string) (*Object, error) {
	return nil, n.err()
}
func (n noHost) Delete(context.Context, Resource, string, string, ...DeleteOption) error {
	return n.err()
}
