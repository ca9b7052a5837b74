package server

import (
	"net/url"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// deleteQuery applies the DeleteOptions query parameters of a DELETE
// (dryRun, gracePeriodSeconds, propagationPolicy, orphanDependents) over
// the body's: the query wins, as in kube-apiserver.
func deleteQuery(q url.Values, into *metav1.DeleteOptions) error {
	if values := q["dryRun"]; len(values) > 0 {
		into.DryRun = values
	}
	if v := q.Get("gracePeriodSeconds"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return badRequest("invalid gracePeriodSeconds %q: %v", v, err)
		}
		into.GracePeriodSeconds = &n
	}
	if v := q.Get("propagationPolicy"); v != "" {
		p := metav1.DeletionPropagation(v)
		into.PropagationPolicy = &p
	}
	if v := q.Get("orphanDependents"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("invalid orphanDependents %q: %v", v, err)
		}
		into.OrphanDependents = &b //nolint:staticcheck // still sent by clients
	}
	return nil
}
