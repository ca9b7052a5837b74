package server

// The OpenAPI parameters of selectors and deletion, as kube-apiserver
// documents them (shortened).
var (
	paramLabelSelector = oaParameter{Name: "labelSelector", In: "query", Schema: oaSchema{Type: "string"},
		Description: "A selector to restrict the list of returned objects by their labels. Defaults to everything."}
	paramFieldSelector = oaParameter{Name: "fieldSelector", In: "query", Schema: oaSchema{Type: "string"},
		Description: "A selector to restrict the list of returned objects by their fields: metadata.name, metadata.namespace and the resource's selectable fields. Defaults to everything."}
	paramGracePeriod = oaParameter{Name: "gracePeriodSeconds", In: "query", Schema: oaSchema{Type: "integer"},
		Description: "The duration in seconds before the object should be deleted. Custom resources are deleted at once (or held by finalizers)."}
	paramPropagation = oaParameter{Name: "propagationPolicy", In: "query", Schema: oaSchema{Type: "string"},
		Description: "Whether and how garbage collection will be performed: 'Orphan', 'Background' (the default) or 'Foreground'."}
	selectorParams = []oaParameter{paramLabelSelector, paramFieldSelector}
	deleteParams   = []oaParameter{paramDryRun, paramGracePeriod, paramPropagation}
)

// deleteCollectionOp is the deletecollection operation of a collection.
func (n opNames) deleteCollectionOp() *oaOperation {
	op := n.op("deletecollection", "delete", "", "delete collection of "+n.rv.Resource.Kind)
	op.OperationID = "delete" + n.prefix + "Collection" + n.scope + n.rv.Resource.Kind
	op.Parameters = append(append([]oaParameter{}, selectorParams...), deleteParams...)
	op.Responses["200"] = jsonResponse("OK", refStatus)
	return op
}
