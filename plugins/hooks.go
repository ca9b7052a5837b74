package plugins

import (
	"context"
	"errors"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/specd-io/specd/plugins/hook"
	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// Default is req.Object with the plugin's defaults applied.
func (h *Host) Default(ctx context.Context, plugin string, req hook.AdmissionRequest) ([]byte, error) {
	var out []byte
	err := h.call(ctx, plugin, "default", func(ctx context.Context, inst *instance) (string, error) {
		resp, err := inst.rpc.Default(ctx, admissionProto(req))
		if err != nil {
			return "", err
		}
		if len(resp.GetObject()) == 0 {
			return resultError, errors.New("default: the plugin answered no object")
		}
		out = resp.GetObject()
		return resultOK, nil
	})
	return out, err
}

// Validate is the field errors the plugin finds in req.Object; none means
// allowed.
func (h *Host) Validate(ctx context.Context, plugin string, req hook.AdmissionRequest) ([]hook.FieldError, error) {
	var out []hook.FieldError
	err := h.call(ctx, plugin, "validate", func(ctx context.Context, inst *instance) (string, error) {
		resp, err := inst.rpc.Validate(ctx, admissionProto(req))
		if err != nil {
			return "", err
		}
		for _, fe := range resp.GetErrors() {
			out = append(out, hook.FieldError{Type: fe.GetType(), Field: fe.GetField(), Message: fe.GetMessage(), Value: string(fe.GetValue())})
		}
		if len(out) > 0 {
			return resultRejected, nil
		}
		return resultOK, nil
	})
	return out, err
}

// Reconcile asks the plugin to reconcile req.Object.
func (h *Host) Reconcile(ctx context.Context, plugin string, req hook.ReconcileRequest) (hook.ReconcileResult, error) {
	var out hook.ReconcileResult
	err := h.call(ctx, plugin, "reconcile", func(ctx context.Context, inst *instance) (string, error) {
		resp, err := inst.rpc.Reconcile(ctx, &pluginv1.ReconcileRequest{
			Group: req.Group, Version: req.Version, Kind: req.Kind, Resource: req.Resource,
			Namespace: req.Namespace, Name: req.Name, Object: req.Object,
		})
		if err != nil {
			return "", err
		}
		out = hook.ReconcileResult{
			RequeueAfter:  time.Duration(resp.GetRequeueAfterMs()) * time.Millisecond,
			Requeue:       resp.GetRequeue(),
			Status:        resp.GetStatus(),
			FinalizerDone: resp.GetFinalizerDone(),
		}
		return resultOK, nil
	})
	return out, err
}

func admissionProto(req hook.AdmissionRequest) *pluginv1.AdmissionRequest {
	return &pluginv1.AdmissionRequest{
		Group: req.Group, Version: req.Version, Kind: req.Kind, Resource: req.Resource,
		Namespace: req.Namespace, Name: req.Name, Operation: req.Operation, Subresource: req.Subresource,
		Object: req.Object, OldObject: req.OldObject, DryRun: req.DryRun,
		UserInfo: userInfoProto(req.UserInfo),
	}
}

// userInfoProto is u as the protocol carries it; nil for no user.
func userInfoProto(u hook.UserInfo) *pluginv1.UserInfo {
	if u.Username == "" && u.UID == "" && len(u.Groups) == 0 && len(u.Extra) == 0 {
		return nil
	}
	out := &pluginv1.UserInfo{Username: u.Username, Uid: u.UID, Groups: u.Groups}
	for k, v := range u.Extra {
		if out.Extra == nil {
			out.Extra = map[string]*pluginv1.ExtraValue{}
		}
		out.Extra[k] = &pluginv1.ExtraValue{Values: v}
	}
	return out
}

// call runs one hook on the plugin's running instance and counts it.
func (h *Host) call(ctx context.Context, plugin, hook string, fn func(context.Context, *instance) (string, error)) error {
	p, err := h.proc(plugin)
	if err != nil {
		return err
	}
	start := time.Now()
	result, err := p.call(ctx, hook, fn)
	callsTotal.WithLabelValues(plugin, hook, result).Inc()
	callDuration.WithLabelValues(plugin, hook).Observe(time.Since(start).Seconds())
	if err != nil {
		return &CallError{Plugin: plugin, Err: err}
	}
	return nil
}

func (p *proc) call(ctx context.Context, hook string, fn func(context.Context, *instance) (string, error)) (string, error) {
	if err := ctx.Err(); err != nil { // nothing left to give the plugin
		return ctxResult(ctx, resultUnavailable), fmt.Errorf("%s: %w", hook, err)
	}
	budget, bounded := budgetOf(ctx)
	inst, waited, err := p.get(ctx)
	if err != nil {
		return getResult(ctx, waited, err), fmt.Errorf("%s: %w", hook, err)
	}
	if waited && bounded {
		var done context.CancelFunc
		ctx, done = afterStart(ctx, budget)
		defer done()
	}
	result, err := fn(ctx, inst)
	if err == nil {
		p.ok()
		return result, nil
	}
	if result != "" { // the plugin answered, wrongly
		return result, err
	}
	return p.failed(ctx, inst, hook, err)
}

// failed sorts out a gRPC call that got no answer: the caller's deadline
// (the plugin hung: kill it), the caller giving up, a broken connection
// (the process died), or the plugin's own error.
func (p *proc) failed(ctx context.Context, inst *instance, hook string, err error) (string, error) {
	code := status.Code(err)
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) || code == codes.DeadlineExceeded:
		p.lost(inst, fmt.Errorf("%s got no answer before its deadline; the process was killed", hook))
		return resultTimeout, fmt.Errorf("%s: no answer before the deadline: %w", hook, context.DeadlineExceeded)
	case errors.Is(ctx.Err(), context.Canceled):
		return resultCanceled, fmt.Errorf("%s: %w", hook, context.Canceled)
	case code == codes.Unavailable:
		p.lost(inst, fmt.Errorf("%w during %s: %s", ErrCrashed, hook, status.Convert(err).Message()))
		return resultUnavailable, fmt.Errorf("%s: %w", hook, ErrCrashed)
	default:
		return resultError, fmt.Errorf("%s: %s", hook, status.Convert(err).Message())
	}
}

// afterStart is the context of a call's answer after the call waited for
// its plugin to start: the start was not the plugin's answer, so the
// answer gets the whole of the call's time, budget, again.
func afterStart(ctx context.Context, budget time.Duration) (context.Context, context.CancelFunc) {
	ctx, stop := withoutDeadline(ctx)
	ctx, cancel := context.WithTimeout(ctx, budget)
	return ctx, func() { cancel(); stop() }
}

// budgetOf is the time left before ctx's deadline, if it has one.
func budgetOf(ctx context.Context) (time.Duration, bool) {
	dl, ok := ctx.Deadline()
	return time.Until(dl), ok
}

// getResult is the result label of a call that got no running instance:
// one that waited for a start failed by the start or by its caller's
// cancel, whatever its deadline did meanwhile.
func getResult(ctx context.Context, waited bool, err error) string {
	switch {
	case !waited:
		return ctxResult(ctx, resultUnavailable)
	case errors.Is(err, context.Canceled):
		return resultCanceled
	}
	return resultUnavailable
}

// ctxResult is the result label of a call that never reached the plugin.
func ctxResult(ctx context.Context, otherwise string) string {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return resultTimeout
	case errors.Is(ctx.Err(), context.Canceled):
		return resultCanceled
	}
	return otherwise
}
