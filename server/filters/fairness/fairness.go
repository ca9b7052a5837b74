package fairness

import (
	"context"
	"fmt"
	"net/http"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	serverfilters "k8s.io/apiserver/pkg/server/filters"
	"k8s.io/apiserver/pkg/storage"
	utilflowcontrol "k8s.io/apiserver/pkg/util/flowcontrol"
	fcmetrics "k8s.io/apiserver/pkg/util/flowcontrol/metrics"
	flowcontrolrequest "k8s.io/apiserver/pkg/util/flowcontrol/request"
	"k8s.io/client-go/informers"
)

// defaultWaitLimit is how long a request without a deadline may wait in
// its queue before it gets 429, as kube-apiserver's filter allows one.
const defaultWaitLimit = 15 * time.Second

// Controller is API Priority and Fairness with kube's built-in
// configuration. Run it before serving with its Wrap.
type Controller struct {
	fc       utilflowcontrol.Interface
	informer informers.SharedInformerFactory
	estimate flowcontrolrequest.WorkEstimatorFunc
}

// New returns a Controller that shares concurrencyLimit seats among the
// priority levels; kube-apiserver gives it the sum of
// --max-requests-inflight and --max-mutating-requests-inflight.
//
// Its metrics (apiserver_flowcontrol_*, kube's names and labels) are
// registered in component-base's legacy registry, which /metrics serves
// them from (internal/metrics).
func New(concurrencyLimit int) *Controller {
	fcmetrics.Register()
	factory := informers.NewSharedInformerFactory(builtinClient{}, 0)
	fc := utilflowcontrol.New(factory, builtinFlowcontrol{}, concurrencyLimit)
	estimate := flowcontrolrequest.NewWorkEstimator(noObjectCounts, fc.GetInterestedWatchCount,
		flowcontrolrequest.DefaultWorkEstimatorConfig(), fc.GetMaxSeats)
	return &Controller{fc: fc, informer: factory, estimate: estimate}
}

// noObjectCounts: specd keeps no per-resource object counts for the work
// estimator, which then gives a list the minimum of seats, as kube's does
// for a resource whose count it does not know.
func noObjectCounts(string) (storage.Stats, error) {
	return storage.Stats{}, flowcontrolrequest.ObjectCountNotFoundErr
}

// Run starts the controller, which runs until ctx ends, and waits until it
// has taken the built-in configuration: before that every request would
// be classified as catch-all.
func (c *Controller) Run(ctx context.Context) error {
	c.informer.Start(ctx.Done())
	// kube's controller waits for its informers in steps of 100 ms
	// (client-go's WaitForCacheSync), after a first look that comes too
	// soon for informers just started; once they have listed, that first
	// look is enough, and a start is 100 ms shorter.
	if err := await(ctx, "informers not synced", c.synced); err != nil {
		return err
	}
	go func() { _ = c.fc.Run(ctx.Done()) }()
	// apiserver_current_inflight_requests and _inqueue_requests, every
	// second, as kube-apiserver starts them with its filter.
	serverfilters.StartPriorityAndFairnessWatermarkMaintenance(ctx.Done())
	return await(ctx, "configuration not taken", func() bool { return c.configured(ctx) })
}

// synced reports whether the informers of the controller have listed.
func (c *Controller) synced() bool {
	v1 := c.informer.Flowcontrol().V1()
	return v1.FlowSchemas().Informer().HasSynced() && v1.PriorityLevelConfigurations().Informer().HasSynced()
}

// await returns once done is true, checked every millisecond: the lists
// are in memory, so they take about that.
func await(ctx context.Context, what string, done func() bool) error {
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for !done() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("priority and fairness: %s: %w", what, ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// probe is a request of an authenticated user, which the built-in
// configuration puts in the global-default priority level.
var probe = utilflowcontrol.RequestDigest{
	RequestInfo: &apirequest.RequestInfo{IsResourceRequest: true, Verb: "get", APIGroup: "specd.io", APIVersion: "v1", Resource: "probes", Name: "p"},
	User:        &user.DefaultInfo{Name: "specd:fairness-probe", Groups: []string{user.AllAuthenticated}},
}

// configured reports whether the controller classifies as the built-in
// configuration does.
func (c *Controller) configured(ctx context.Context) bool {
	var level string
	note := func(_ *flowcontrolv1.FlowSchema, pl *flowcontrolv1.PriorityLevelConfiguration, _ string) {
		level = pl.Name
	}
	one := func() flowcontrolrequest.WorkEstimate { return flowcontrolrequest.WorkEstimate{InitialSeats: 1} }
	c.fc.Handle(ctx, probe, note, one, nil, func() {})
	return level == bootstrap.SuggestedPriorityLevelConfigurationGlobalDefault.Name
}

// Wrap returns h behind kube's priority and fairness filter: long-running
// requests other than watches pass, a watch holds its seat until its
// handler says it has started (utilflowcontrol.WatchInitialized), and a
// request that waits longer than a quarter of its deadline in its queue
// gets 429 with Retry-After. Requests of system:masters, which the
// built-in configuration exempts, skip it (skipExempt).
func (c *Controller) Wrap(h http.Handler, long apirequest.LongRunningRequestCheck, requestTimeout time.Duration) http.Handler {
	wait := defaultWaitLimit
	if requestTimeout > 0 {
		wait = requestTimeout / 4
	}
	return skipExempt(h, serverfilters.WithPriorityAndFairness(h, long, c.fc, c.estimate, wait))
}
