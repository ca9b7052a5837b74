package sdk

import (
	"context"
	"fmt"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// The types of an Event, as Kubernetes names them.
const (
	EventNormal  = "Normal"
	EventWarning = "Warning"
)

// Event is one event a reconciler records.
type Event struct {
	// Type is EventNormal or EventWarning.
	Type string
	// Reason is short and UpperCamelCase: "Scaled", "FailedCreate".
	Reason string
	// Message says what happened, for people.
	Message string
}

// Events records Kubernetes Events about the object being reconciled, as a
// controller's EventRecorder does: core v1 Events in the object's
// namespace, from the plugin, which `kubectl describe` lists under the
// object. specd counts repeats: the same event again raises the count and
// lastTimestamp of the Event it made before instead of adding one, and it
// drops an object's events beyond 25 at once (then one every five minutes).
//
// Recording never fails a reconcile: an event specd could not write is
// logged to Logger. Record before the reconcile function returns; its
// context bounds each write. A nil *Events records nothing, so a test may
// leave ReconcileRequest.Events unset, or use NewEvents to see them.
type Events struct {
	// ctx is the reconcile's, kept as an http.Request keeps its own: the
	// methods mirror client-go's recorder, which takes no context.
	ctx    context.Context
	record func(context.Context, Event)
}

// NewEvents is an Events that hands every event to record instead of
// specd: for a reconciler's tests.
func NewEvents(record func(Event)) *Events {
	return &Events{ctx: context.Background(), record: func(_ context.Context, e Event) { record(e) }}
}

// Normal records an event of type Normal: something expected happened.
func (e *Events) Normal(reason, message string) { e.event(EventNormal, reason, message) }

// Normalf is Normal with a fmt.Sprintf message.
func (e *Events) Normalf(reason, format string, args ...any) {
	e.event(EventNormal, reason, fmt.Sprintf(format, args...))
}

// Warning records an event of type Warning: something went wrong that a
// person may need to know.
func (e *Events) Warning(reason, message string) { e.event(EventWarning, reason, message) }

// Warningf is Warning with a fmt.Sprintf message.
func (e *Events) Warningf(reason, format string, args ...any) {
	e.event(EventWarning, reason, fmt.Sprintf(format, args...))
}

func (e *Events) event(typ, reason, message string) {
	if e == nil || e.record == nil {
		return
	}
	e.record(e.ctx, Event{Type: typ, Reason: reason, Message: message})
}

// hostEvents records through the Host service, about the object of req.
func hostEvents(ctx context.Context, rpc pluginv1.HostClient, req *ReconcileRequest) *Events {
	ref := objectReference(req)
	return &Events{ctx: ctx, record: func(ctx context.Context, e Event) {
		resp, err := rpc.RecordEvent(ctx, &pluginv1.RecordEventRequest{
			InvolvedObject: ref, Type: e.Type, Reason: e.Reason, Message: e.Message,
		})
		if err == nil {
			err = statusError(resp.GetStatus())
		}
		if err != nil {
			Logger.Warn("could not record an event", "object", req.Namespace+"/"+req.Name, "kind", req.Kind,
				"type", e.Type, "reason", e.Reason, "error", err.Error())
		}
	}}
}

// noHostEvents logs each event: specd gave no Host service to send it to.
func noHostEvents(req *ReconcileRequest) *Events {
	return &Events{ctx: context.Background(), record: func(_ context.Context, e Event) {
		Logger.Warn("specd serves no host service to this plugin; event not recorded",
			"object", req.Namespace+"/"+req.Name, "type", e.Type, "reason", e.Reason, "message", e.Message)
	}}
}

// objectReference is the reconciled object as an Event's involvedObject.
func objectReference(req *ReconcileRequest) *pluginv1.ObjectReference {
	apiVersion := req.Version
	if req.Group != "" {
		apiVersion = req.Group + "/" + req.Version
	}
	return &pluginv1.ObjectReference{
		ApiVersion: apiVersion, Kind: req.Kind, Namespace: req.Namespace, Name: req.Name,
		Uid: req.Object.UID(), ResourceVersion: req.Object.ResourceVersion(),
	}
}
