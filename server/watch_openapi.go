package server

// The query parameters of a list that also watches, as kube-apiserver
// documents them on every list operation.
var watchParams = []oaParameter{
	{Name: "allowWatchBookmarks", In: "query", Schema: oaSchema{Type: "boolean"},
		Description: "allowWatchBookmarks requests watch events with type \"BOOKMARK\"; the server sends them now and then, with only resourceVersion set."},
	{Name: "resourceVersion", In: "query", Schema: oaSchema{Type: "string"},
		Description: "resourceVersion sets a constraint on what resource versions a request may be served from: unset is the most recent (consistent), \"0\" any, a version at least that one (or exactly it with resourceVersionMatch=Exact); a watch starts after it."},
	{Name: "resourceVersionMatch", In: "query", Schema: oaSchema{Type: "string"},
		Description: "resourceVersionMatch (Exact or NotOlderThan) says how resourceVersion applies to a list."},
	{Name: "sendInitialEvents", In: "query", Schema: oaSchema{Type: "boolean"},
		Description: "sendInitialEvents=true (with resourceVersionMatch=NotOlderThan and allowWatchBookmarks) starts a watch with the current objects as ADDED events, then a BOOKMARK annotated \"k8s.io/initial-events-end\": \"true\"."},
	{Name: "timeoutSeconds", In: "query", Schema: oaSchema{Type: "integer"},
		Description: "Timeout for the list/watch call, regardless of any activity or inactivity."},
	{Name: "watch", In: "query", Schema: oaSchema{Type: "boolean"},
		Description: "Watch for changes to the described resources and return them as a stream of add, update, and remove notifications."},
}
