package fairness

import (
	"net/http"
	"slices"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// The answer headers kube's filter sets for a request of the exempt
// FlowSchema and priority level, keyed as Header.Set keys them: the
// built-in objects' uids.
var (
	flowSchemaHeader    = http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedFlowSchemaUID)
	priorityLevelHeader = http.CanonicalHeaderKey(flowcontrolv1.ResponseHeaderMatchedPriorityLevelConfigurationUID)
	exemptFlowSchema    = []string{string(builtinUID("flowschemas", flowcontrolv1.FlowSchemaNameExempt))}
	exemptPriorityLevel = []string{string(builtinUID("prioritylevelconfigurations", flowcontrolv1.PriorityLevelConfigurationNameExempt))}
)

// skipExempt sends the requests of system:masters straight to h, and the
// others to fair. kube's built-in configuration classifies system:masters
// first, into the exempt priority level, which never queues nor refuses a
// request: classifying, estimating and accounting for it (a third of the
// allocations of a get) change nothing for it but the apiserver_flowcontrol_*
// series of the exempt level. The answer carries the same
// X-Kubernetes-PF-* headers as through the filter.
func skipExempt(h, fair http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, ok := apirequest.UserFrom(r.Context()); ok && slices.Contains(u.GetGroups(), user.SystemPrivilegedGroup) {
			hdr := w.Header()
			hdr[flowSchemaHeader] = exemptFlowSchema
			hdr[priorityLevelHeader] = exemptPriorityLevel
			h.ServeHTTP(w, r)
			return
		}
		fair.ServeHTTP(w, r)
	})
}
