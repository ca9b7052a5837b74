package engine

import (
	"context"

	genericrequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/schemas"
)

// write is one write as the pipeline carries it from its verb down to
// storage: what it writes to (and through which subresource), the
// operation the plugins are told of, its options, and who asks.
type write struct {
	Ref
	op   string // hook.OperationCreate or hook.OperationUpdate
	opts WriteOptions
	user hook.UserInfo
}

// newWrite starts a write of ref by the user of ctx.
func newWrite(ctx context.Context, op string, ref Ref, opts WriteOptions) *write {
	return &write{Ref: ref, op: op, opts: opts, user: requestUser(ctx)}
}

// resource is the resource written to.
func (w *write) resource() *schemas.Resource { return w.Version.Resource }

// status reports a write through the status subresource: it changes the
// status alone.
func (w *write) status() bool { return w.Subresource == "status" }

// admissionRequest is the plugins' view of this write of obj (and of
// old, on update), in version of the resource.
func (w *write) admissionRequest(version, namespace, name string, obj, old []byte) hook.AdmissionRequest {
	r := w.resource()
	return hook.AdmissionRequest{
		Group: r.Group, Version: version, Kind: r.Kind, Resource: r.Plural,
		Namespace: namespace, Name: name,
		Operation: w.op, Subresource: w.Subresource,
		Object: obj, OldObject: old, DryRun: w.opts.DryRun, UserInfo: w.user,
	}
}

// requestUser is the user that the server's authentication (or a
// plugin's callback) put in ctx, as admission plugins are told it; the
// zero UserInfo when there is none, as with authentication off.
func requestUser(ctx context.Context) hook.UserInfo {
	u, ok := genericrequest.UserFrom(ctx)
	if !ok || u == nil {
		return hook.UserInfo{}
	}
	return hook.UserInfo{Username: u.GetName(), UID: u.GetUID(), Groups: u.GetGroups(), Extra: u.GetExtra()}
}
