package plugins

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/endpoints/request"

	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/plugins/hook"
	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// hostService serves Callbacks to one plugin over the broker. A failed call
// is answered, not returned as a gRPC error: the response carries the
// Kubernetes Status, so the plugin sees code and reason. Every call carries
// the plugin's own user in its context (request.WithUser), so that
// authorization, admission and audit see who acts.
type hostService struct {
	pluginv1.UnimplementedHostServer
	cb   hook.Callbacks
	user user.Info
	rec  *events.Recorder
}

// as is ctx with the plugin's user.
func (s *hostService) as(ctx context.Context) context.Context {
	return request.WithUser(ctx, s.user)
}

func ref(r *pluginv1.ResourceRef) hook.ResourceRef {
	return hook.ResourceRef{Group: r.GetGroup(), Version: r.GetVersion(), Resource: r.GetResource()}
}

func (s *hostService) Get(ctx context.Context, req *pluginv1.GetRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	return respond(s.cb.Get(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetName()))
}

func (s *hostService) List(ctx context.Context, req *pluginv1.ListRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	return respond(s.cb.List(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetLabelSelector()))
}

func (s *hostService) Create(ctx context.Context, req *pluginv1.CreateRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	return respond(s.cb.Create(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetObject()))
}

func (s *hostService) Update(ctx context.Context, req *pluginv1.UpdateRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	return respond(s.cb.Update(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetName(), req.GetObject()))
}

func (s *hostService) UpdateStatus(ctx context.Context, req *pluginv1.UpdateRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	return respond(s.cb.UpdateStatus(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetName(), req.GetObject()))
}

func (s *hostService) Patch(ctx context.Context, req *pluginv1.PatchRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	return respond(s.cb.Patch(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetName(),
		req.GetPatchType(), req.GetPatch(), req.GetSubresource()))
}

func (s *hostService) Delete(ctx context.Context, req *pluginv1.DeleteRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil {
		return unavailable(), nil
	}
	err := s.cb.Delete(s.as(ctx), ref(req.GetResource()), req.GetNamespace(), req.GetName(), req.GetPropagationPolicy())
	return respond(nil, err)
}

// RecordEvent writes the Event through the same Callbacks, as the plugin.
func (s *hostService) RecordEvent(ctx context.Context, req *pluginv1.RecordEventRequest) (*pluginv1.ObjectResponse, error) {
	if s.cb == nil || s.rec == nil {
		return unavailable(), nil
	}
	return respond(s.rec.Record(s.as(ctx), objectRef(req.GetInvolvedObject()), req.GetType(), req.GetReason(), req.GetMessage()))
}

func objectRef(r *pluginv1.ObjectReference) corev1.ObjectReference {
	return corev1.ObjectReference{
		APIVersion: r.GetApiVersion(), Kind: r.GetKind(), Namespace: r.GetNamespace(), Name: r.GetName(),
		UID: types.UID(r.GetUid()), ResourceVersion: r.GetResourceVersion(), FieldPath: r.GetFieldPath(),
	}
}

func respond(obj []byte, err error) (*pluginv1.ObjectResponse, error) {
	if err != nil {
		return &pluginv1.ObjectResponse{Status: statusJSON(err)}, nil
	}
	return &pluginv1.ObjectResponse{Object: obj}, nil
}

func unavailable() *pluginv1.ObjectResponse {
	err := apierrors.NewServiceUnavailable("specd serves no callbacks to plugins")
	return &pluginv1.ObjectResponse{Status: statusJSON(err)}
}

// statusJSON is err as a Kubernetes Status: its own for an API error, 504
// for a deadline, 500 for anything else.
func statusJSON(err error) []byte {
	var st metav1.Status
	var apiStatus apierrors.APIStatus
	switch {
	case errors.As(err, &apiStatus):
		st = apiStatus.Status()
	case errors.Is(err, context.DeadlineExceeded), errors.Is(err, context.Canceled):
		st = apierrors.NewTimeoutError(err.Error(), 0).Status()
	default:
		st = apierrors.NewInternalError(err).Status()
	}
	st.Kind, st.APIVersion = "Status", "v1"
	b, merr := json.Marshal(st)
	if merr != nil {
		return []byte(fmt.Sprintf(`{"kind":"Status","apiVersion":"v1","status":"Failure","code":500,"reason":"InternalError","message":%q}`, err.Error()))
	}
	return b
}
