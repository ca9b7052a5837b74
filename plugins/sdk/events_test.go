package sdk

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/testing/protocmp"

	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

// fakeHost answers RecordEvent with status (none: success) and keeps the
// requests; other calls are not expected.
type fakeHost struct {
	pluginv1.HostClient
	status []byte
	got    []*pluginv1.RecordEventRequest
}

func (f *fakeHost) RecordEvent(_ context.Context, req *pluginv1.RecordEventRequest, _ ...grpc.CallOption) (*pluginv1.ObjectResponse, error) {
	f.got = append(f.got, req)
	return &pluginv1.ObjectResponse{Status: f.status}, nil
}

// logTo points Logger at a buffer for the test.
func logTo(t *testing.T) *bytes.Buffer {
	t.Helper()
	var buf bytes.Buffer
	old := Logger
	Logger = slog.New(slog.NewTextHandler(&buf, nil))
	t.Cleanup(func() { Logger = old })
	return &buf
}

func recordingServer(t *testing.T, host *fakeHost, fn ReconcileFunc) *server {
	t.Helper()
	s, err := newServer([]Handler{Reconciler("fleet.example.com", "Fleet", fn)})
	if err != nil {
		t.Fatal(err)
	}
	if host != nil {
		s.client, s.host = &hostClient{rpc: host}, host
	}
	return s
}

var fleetReq = &pluginv1.ReconcileRequest{Group: "fleet.example.com", Version: "v1", Kind: "Fleet", Resource: "fleets",
	Namespace: "sea", Name: "armada",
	Object: []byte(`{"apiVersion":"fleet.example.com/v1","kind":"Fleet","metadata":{"name":"armada","namespace":"sea","uid":"u1","resourceVersion":"42"}}`)}

// TestEventsRecordThroughHost: a reconciler's events reach the Host's
// RecordEvent about the reconciled object, with their type, reason and
// message.
func TestEventsRecordThroughHost(t *testing.T) {
	host := &fakeHost{}
	s := recordingServer(t, host, func(_ context.Context, req *ReconcileRequest) (Result, error) {
		req.Events.Normal("Scaled", "Created ship armada-0")
		req.Events.Normalf("Scaled", "Scaled to %d ships", 3)
		req.Events.Warning("FailedCreate", "no room")
		req.Events.Warningf("FailedDelete", "ship %s: %s", "armada-9", "gone")
		return Result{}, nil
	})
	if _, err := s.Reconcile(context.Background(), fleetReq); err != nil {
		t.Fatal(err)
	}
	ref := &pluginv1.ObjectReference{ApiVersion: "fleet.example.com/v1", Kind: "Fleet", Namespace: "sea", Name: "armada",
		Uid: "u1", ResourceVersion: "42"}
	want := []*pluginv1.RecordEventRequest{
		{InvolvedObject: ref, Type: "Normal", Reason: "Scaled", Message: "Created ship armada-0"},
		{InvolvedObject: ref, Type: "Normal", Reason: "Scaled", Message: "Scaled to 3 ships"},
		{InvolvedObject: ref, Type: "Warning", Reason: "FailedCreate", Message: "no room"},
		{InvolvedObject: ref, Type: "Warning", Reason: "FailedDelete", Message: "ship armada-9: gone"},
	}
	if diff := cmp.Diff(want, host.got, protocmp.Transform()); diff != "" {
		t.Errorf("RecordEvent requests (-want +got):\n%s", diff)
	}
}

// TestEventsFailureIsLogged: an event specd refuses does not fail the
// reconcile; it is logged with specd's message.
func TestEventsFailureIsLogged(t *testing.T) {
	log := logTo(t)
	host := &fakeHost{status: []byte(`{"code":403,"reason":"Forbidden","message":"events is forbidden: User \"system:plugin:p\" cannot create"}`)}
	s := recordingServer(t, host, func(_ context.Context, req *ReconcileRequest) (Result, error) {
		req.Events.Normal("Scaled", "m")
		return Result{Requeue: true}, nil
	})
	resp, err := s.Reconcile(context.Background(), fleetReq)
	if err != nil || !resp.GetRequeue() {
		t.Fatalf("reconcile: %v, %v; want its own result", resp, err)
	}
	if got := log.String(); !strings.Contains(got, "could not record an event") || !strings.Contains(got, "cannot create") {
		t.Errorf("log = %q, want the refusal", got)
	}
}

// TestEventsWithoutHost: without a Host service events are logged, a nil
// Events records nothing, and NewEvents hands events to a test.
func TestEventsWithoutHost(t *testing.T) {
	log := logTo(t)
	s := recordingServer(t, nil, func(_ context.Context, req *ReconcileRequest) (Result, error) {
		req.Events.Warning("Stuck", "no host")
		return Result{}, nil
	})
	if _, err := s.Reconcile(context.Background(), fleetReq); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(log.String(), "event not recorded") || !strings.Contains(log.String(), "Stuck") {
		t.Errorf("log = %q", log.String())
	}
	var none *Events
	none.Normal("Nothing", "happens") // must not panic

	var got []Event
	ev := NewEvents(func(e Event) { got = append(got, e) })
	ev.Normalf("Scaled", "to %d", 2)
	ev.Warning("Bad", "b")
	if diff := cmp.Diff([]Event{{"Normal", "Scaled", "to 2"}, {"Warning", "Bad", "b"}}, got); diff != "" {
		t.Errorf("NewEvents (-want +got):\n%s", diff)
	}
}
