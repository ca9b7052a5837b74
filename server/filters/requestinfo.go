package filters

import (
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apiserver/pkg/endpoints/request"
)

// watchVerbs are the long-running verbs: watches are not counted in
// flight, get no timeout and are audited at their start.
var (
	watchVerbs     = sets.NewString("watch")
	noSubresources = sets.NewString()
)

// NewRequestInfoResolver returns the resolver that reads specd's URLs as
// kube-apiserver reads its own: /apis/G/V/[namespaces/NS/]R[/N[/SUB]],
// the legacy /api prefix, and every other path as a non-resource URL.
// The verb comes from the method, ?watch and whether a name is given
// (get, list, watch, create, update, patch, delete, deletecollection).
func NewRequestInfoResolver() request.RequestInfoResolver {
	return &request.RequestInfoFactory{
		APIPrefixes:          sets.NewString("api", "apis"),
		GrouplessAPIPrefixes: sets.NewString("api"),
	}
}
