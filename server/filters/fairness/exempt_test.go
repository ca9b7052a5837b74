package fairness

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	flowcontrolrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
	"k8s.io/component-base/metrics/legacyregistry"
)

// TestExemptSkipsTheFilter: a request of system:masters reaches the
// handler without kube's filter (the exempt level's dispatched count
// stays where it was), with the X-Kubernetes-PF-* headers of the exempt
// FlowSchema and priority level as the controller classifies it; another
// user's request still goes through the filter.
func TestExemptSkipsTheFilter(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c := New(10)
	if err := c.Run(ctx); err != nil {
		t.Fatal(err)
	}
	var served int
	h := c.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { served++ }), func(*http.Request, *apirequest.RequestInfo) bool { return false }, time.Minute)
	admin := &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
	bob := &user.DefaultInfo{Name: "bob", Groups: []string{user.AllAuthenticated}}

	before := dispatched(t, "exempt")
	w := serveAs(h, admin)
	if served != 1 || dispatched(t, "exempt") != before {
		t.Errorf("system:masters: served %d, exempt dispatched %v -> %v; want served once, not through the filter", served, before, dispatched(t, "exempt"))
	}
	fs, pl := classify(ctx, c, admin)
	if fs.Name != flowcontrolv1.FlowSchemaNameExempt || pl.Name != flowcontrolv1.PriorityLevelConfigurationNameExempt {
		t.Fatalf("the controller classifies system:masters as %s/%s, not exempt: the skip no longer matches the configuration", fs.Name, pl.Name)
	}
	if got := w.Header().Get(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID); got != string(fs.UID) {
		t.Errorf("FlowSchema uid header %q, want %q", got, fs.UID)
	}
	if got := w.Header().Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID); got != string(pl.UID) {
		t.Errorf("PriorityLevel uid header %q, want %q", got, pl.UID)
	}

	before = dispatched(t, "global-default")
	w = serveAs(h, bob)
	if served != 2 || dispatched(t, "global-default") != before+1 || w.Header().Get(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID) == "" {
		t.Errorf("bob: served %d, global-default dispatched %v -> %v, headers %v; want him through the filter", served, before, dispatched(t, "global-default"), w.Header())
	}
}

func serveAs(h http.Handler, u user.Info) *httptest.ResponseRecorder {
	r := httptest.NewRequest("GET", "/apis/shop.example.com/v1/namespaces/default/widgets/w", nil)
	ctx := apirequest.WithUser(r.Context(), u)
	ctx = apirequest.WithRequestInfo(ctx, &apirequest.RequestInfo{IsResourceRequest: true, Verb: "get", APIGroup: "shop.example.com", APIVersion: "v1", Resource: "widgets", Namespace: "default", Name: "w"})
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r.WithContext(ctx))
	return w
}

// classify is what the controller makes of a get by u.
func classify(ctx context.Context, c *Controller, u user.Info) (fs *flowcontrolv1.FlowSchema, pl *flowcontrolv1.PriorityLevelConfiguration) {
	digest := utilflowcontrol.RequestDigest{RequestInfo: &apirequest.RequestInfo{IsResourceRequest: true, Verb: "get", APIGroup: "shop.example.com", APIVersion: "v1", Resource: "widgets", Namespace: "default", Name: "w"}, User: u}
	c.fc.Handle(ctx, digest, func(f *flowcontrolv1.FlowSchema, p *flowcontrolv1.PriorityLevelConfiguration, _ string) {
		fs, pl = f, p
	},
		func() flowcontrolrequest.WorkEstimate { return flowcontrolrequest.WorkEstimate{InitialSeats: 1} }, nil, func() {})
	return fs, pl
}

// dispatched is apiserver_flowcontrol_dispatched_requests_total of the
// priority level named level (and its FlowSchema of the same name).
func dispatched(t *testing.T, level string) float64 {
	t.Helper()
	mfs, err := legacyregistry.DefaultGatherer.Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, mf := range mfs {
		if mf.GetName() != "apiserver_flowcontrol_dispatched_requests_total" {
			continue
		}
		for _, m := range mf.GetMetric() {
			var labels []string
			for _, l := range m.GetLabel() {
				labels = append(labels, l.GetName()+"="+l.GetValue())
			}
			if strings.Join(labels, ",") == "flow_schema="+level+",priority_level="+level {
				return m.GetCounter().GetValue()
			}
		}
	}
	return 0
}
