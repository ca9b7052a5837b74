package filters

import (
	"context"
	"net/http"
	"time"

	endpointsmetrics "k8s.io/apiserver/pkg/endpoints/metrics"
	"k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/endpoints/responsewriter"
	serverfilters "k8s.io/apiserver/pkg/server/filters"
)

// withRequestMetrics records every API request that reaches specd's
// routing in kube-apiserver's request metrics (apiserver_request_total by
// verb, group, version, resource, subresource, scope, component and code;
// apiserver_request_duration_seconds; apiserver_response_sizes for
// reads), with kube's own code, so that dashboards made for
// kube-apiserver read specd. It sits where kube instruments its routes:
// after authorization, so a request refused by the chain is counted as
// kube counts it (429 and 504 by the filters that refuse them, 401 and
// 403 not at all). Requests that are not for a resource (discovery,
// /healthz, /metrics) are not recorded, as kube records only its
// resource routes here.
func withRequestMetrics(h http.Handler) http.Handler {
	endpointsmetrics.Register()
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		info, ok := request.RequestInfoFrom(req.Context())
		if !ok || !info.IsResourceRequest {
			h.ServeHTTP(w, req)
			return
		}
		received, ok := request.ReceivedTimestampFrom(req.Context())
		if !ok {
			received = time.Now()
		}
		delegate := &endpointsmetrics.ResponseWriterDelegator{ResponseWriter: w}
		h.ServeHTTP(responsewriter.WrapForHTTP1Or2(delegate), req)
		endpointsmetrics.MonitorRequest(req, endpointsmetrics.NormalizedVerb(req), info.APIGroup, info.APIVersion,
			info.Resource, info.Subresource, endpointsmetrics.CleanScope(info), endpointsmetrics.APIServerComponent,
			false, "", delegate.Status(), delegate.ContentLength(), time.Since(received))
	})
}

// RecordInFlight keeps apiserver_current_inflight_requests up to date,
// every second while ctx lasts, for the in-flight bounds (without
// priority and fairness, whose controller keeps it).
func RecordInFlight(ctx context.Context) {
	serverfilters.StartMaxInFlightWatermarkMaintenance(ctx.Done())
}
