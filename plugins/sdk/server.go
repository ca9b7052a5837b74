package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"sync"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

type groupKind struct{ group, kind string }

// server answers specd's calls with the registered handlers.
type server struct {
	pluginv1.UnimplementedPluginServer
	handlers map[groupKind]*Handler
	broker   *plugin.GRPCBroker

	mu     sync.Mutex
	client Client              // set by Describe
	host   pluginv1.HostClient // set by Describe; nil without a Host service
}

func newServer(handlers []Handler) (*server, error) {
	s := &server{handlers: map[groupKind]*Handler{}}
	for _, h := range handlers {
		if h.group == "" && h.kind == "" {
			return nil, errors.New("a handler names no group and kind")
		}
		gk := groupKind{h.group, h.kind}
		merged := s.handlers[gk]
		if merged == nil {
			merged = &Handler{group: h.group, kind: h.kind}
			s.handlers[gk] = merged
		}
		if err := merge(merged, h); err != nil {
			return nil, fmt.Errorf("%s/%s: %w", h.group, h.kind, err)
		}
	}
	return s, nil
}

func merge(into *Handler, h Handler) error {
	switch {
	case h.defaulter != nil && into.defaulter != nil:
		return errors.New("two defaulters")
	case h.validator != nil && into.validator != nil:
		return errors.New("two validators")
	case h.reconciler != nil && into.reconciler != nil:
		return errors.New("two reconcilers")
	case h.finalizer != "" && h.reconciler == nil:
		return errors.New("a finalizer without a reconciler")
	}
	if h.defaulter != nil {
		into.defaulter = h.defaulter
	}
	if h.validator != nil {
		into.validator = h.validator
	}
	if h.reconciler != nil {
		into.reconciler, into.finalizer = h.reconciler, h.finalizer
	}
	return nil
}

// Describe dials the Host service now, as the broker forgets an id that is
// not dialed within seconds, and lists the kinds served.
func (s *server) Describe(_ context.Context, req *pluginv1.DescribeRequest) (*pluginv1.DescribeResponse, error) {
	if req.GetHostBrokerId() != 0 && s.broker != nil {
		conn, err := s.broker.Dial(req.GetHostBrokerId())
		if err != nil {
			return nil, status.Errorf(codes.Internal, "dial the specd host service: %v", err)
		}
		host := pluginv1.NewHostClient(conn)
		s.mu.Lock()
		s.client, s.host = &hostClient{rpc: host}, host
		s.mu.Unlock()
	}
	resp := &pluginv1.DescribeResponse{}
	for gk, h := range s.handlers {
		resp.Kinds = append(resp.Kinds, &pluginv1.KindHooks{
			Group: gk.group, Kind: gk.kind,
			Default: h.defaulter != nil, Validate: h.validator != nil, Reconcile: h.reconciler != nil,
			Finalizer: h.finalizer,
		})
	}
	sort.Slice(resp.Kinds, func(i, j int) bool {
		a, b := resp.Kinds[i], resp.Kinds[j]
		return a.Group < b.Group || a.Group == b.Group && a.Kind < b.Kind
	})
	return resp, nil
}

func (s *server) Default(ctx context.Context, req *pluginv1.AdmissionRequest) (*pluginv1.DefaultResponse, error) {
	h := s.handlers[groupKind{req.GetGroup(), req.GetKind()}]
	if h == nil || h.defaulter == nil {
		return nil, unimplemented("defaulting", req.GetGroup(), req.GetKind())
	}
	areq, err := admissionRequest(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	if err := protect(func() error { return h.defaulter(ctx, areq) }); err != nil {
		return nil, hookError(err)
	}
	return &pluginv1.DefaultResponse{Object: areq.Object.JSON()}, nil
}

func (s *server) Validate(ctx context.Context, req *pluginv1.AdmissionRequest) (*pluginv1.ValidateResponse, error) {
	h := s.handlers[groupKind{req.GetGroup(), req.GetKind()}]
	if h == nil || h.validator == nil {
		return nil, unimplemented("validation", req.GetGroup(), req.GetKind())
	}
	areq, err := admissionRequest(req)
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	var errs FieldErrors
	if err := protect(func() (err error) { errs, err = h.validator(ctx, areq); return err }); err != nil {
		return nil, hookError(err)
	}
	resp := &pluginv1.ValidateResponse{}
	for _, fe := range errs {
		pfe, err := fe.proto()
		if err != nil {
			return nil, hookError(err)
		}
		resp.Errors = append(resp.Errors, pfe)
	}
	return resp, nil
}

func (s *server) Reconcile(ctx context.Context, req *pluginv1.ReconcileRequest) (*pluginv1.ReconcileResponse, error) {
	h := s.handlers[groupKind{req.GetGroup(), req.GetKind()}]
	if h == nil || h.reconciler == nil {
		return nil, unimplemented("reconciliation", req.GetGroup(), req.GetKind())
	}
	obj, err := ParseObject(req.GetObject())
	if err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	rreq := &ReconcileRequest{
		Group: req.GetGroup(), Version: req.GetVersion(), Kind: req.GetKind(), Resource: req.GetResource(),
		Namespace: req.GetNamespace(), Name: req.GetName(), Object: obj,
	}
	s.connect(ctx, rreq)
	var res Result
	if err := protect(func() (err error) { res, err = h.reconciler(ctx, rreq); return err }); err != nil {
		return nil, hookError(err)
	}
	st, err := res.statusJSON()
	if err != nil {
		return nil, hookError(err)
	}
	return &pluginv1.ReconcileResponse{
		RequeueAfterMs: res.RequeueAfter.Milliseconds(),
		Requeue:        res.Requeue,
		Status:         st,
		FinalizerDone:  res.FinalizerDone,
	}, nil
}

// connect gives req the Client and Events of the Host service, or ones
// that say there is none.
func (s *server) connect(ctx context.Context, req *ReconcileRequest) {
	s.mu.Lock()
	client, host := s.client, s.host
	s.mu.Unlock()
	if client == nil || host == nil {
		req.Client, req.Events = noHost{}, noHostEvents(req)
		return
	}
	req.Client, req.Events = client, hostEvents(ctx, host, req)
}

func admissionRequest(req *pluginv1.AdmissionRequest) (*AdmissionRequest, error) {
	obj, err := ParseObject(req.GetObject())
	if err != nil {
		return nil, fmt.Errorf("object: %w", err)
	}
	areq := &AdmissionRequest{
		Group: req.GetGroup(), Version: req.GetVersion(), Kind: req.GetKind(), Resource: req.GetResource(),
		Namespace: req.GetNamespace(), Name: req.GetName(), Operation: Operation(req.GetOperation()),
		Subresource: req.GetSubresource(),
		Object:      obj, DryRun: req.GetDryRun(), UserInfo: userInfo(req.GetUserInfo()),
	}
	if len(req.GetOldObject()) > 0 {
		if areq.OldObject, err = ParseObject(req.GetOldObject()); err != nil {
			return nil, fmt.Errorf("oldObject: %w", err)
		}
	}
	return areq, nil
}

// userInfo is the request's user; the zero UserInfo when the host sent
// none.
func userInfo(u *pluginv1.UserInfo) UserInfo {
	if u == nil {
		return UserInfo{}
	}
	out := UserInfo{Username: u.GetUsername(), UID: u.GetUid(), Groups: u.GetGroups()}
	for k, v := range u.GetExtra() {
		if out.Extra == nil {
			out.Extra = map[string][]string{}
		}
		out.Extra[k] = v.GetValues()
	}
	return out
}

// protect turns a panic in a plugin author's function into an error, so
// one bad object does not stop the plugin for every other.
func protect(fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			Logger.Error("plugin function panicked", "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = fmt.Errorf("panic: %v", r)
		}
	}()
	return fn()
}

// hookError is a failed hook as the protocol carries it: any gRPC code but
// Unavailable, which specd reads as a dead plugin process. specd names the
// hook and the plugin itself.
func hookError(err error) error {
	return status.Error(codes.Unknown, err.Error())
}

func unimplemented(what, group, kind string) error {
	return status.Errorf(codes.Unimplemented, "this plugin does no %s for %s/%s", what, group, kind)
}

// statusJSON is the Result's status as the protocol carries it.
func (r Result) statusJSON() ([]byte, error) {
	var b []byte
	switch st := r.Status.(type) {
	case nil:
		return nil, nil
	case *Object:
		if st == nil {
			return nil, nil
		}
		b = st.JSON()
	case json.RawMessage:
		b = st
	case []byte:
		b = st
	default:
		var err error
		if b, err = json.Marshal(st); err != nil {
			return nil, fmt.Errorf("status: %w", err)
		}
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return nil, fmt.Errorf("status is not a JSON object: %.60q", b)
	}
	return b, nil
}
