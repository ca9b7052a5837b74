package openapi

// The operations specd serves, as one model both published documents are
// written from: the OpenAPI v3 document of each group version and the
// Swagger 2.0 document of everything. Schemas are named by their
// components.schemas (v3) / definitions (v2) name.

// apiPath is one URL path and the operations it serves.
type apiPath struct {
	path   string
	params []apiParam // path parameters, shared by the operations
	ops    []*apiOp
}

// apiOp is one operation: an HTTP method on a path.
type apiOp struct {
	method      string // get, put, post, delete or patch
	id          string // operationId, kube's style: listShopExampleComV1NamespacedWidget
	description string
	action      string // x-kubernetes-action
	gvk         oaGVK  // x-kubernetes-group-version-kind
	tag         string
	deprecated  bool
	params      []apiParam
	body        *apiBody
	responses   []apiResponse
}

type apiParam struct {
	name     string
	in       string // path or query
	typ      string // string, integer or boolean
	desc     string
	required bool
}

type apiBody struct {
	schema     string
	mediaTypes []string
	required   bool
}

// apiResponse is one response code. union, when set, names the schema
// that is one of schemas (OpenAPI 3); Swagger 2.0, which has no oneOf,
// says schemas[0]. watch means a list that may also answer a watch
// stream, which Swagger 2.0 says in produces, as kube-apiserver's does.
type apiResponse struct {
	code    string
	desc    string
	schemas []string
	union   string
	watch   bool
}

const (
	extGVK    = "x-kubernetes-group-version-kind"
	extAction = "x-kubernetes-action"

	mediaJSON  = "application/json"
	mediaYAML  = "application/yaml"
	mediaWatch = "application/json;stream=watch"
)

var (
	objectMediaTypes = []string{mediaJSON, mediaYAML}
	patchTypes       = []string{"application/apply-patch+yaml", "application/json-patch+json", "application/merge-patch+json"}
)

func queryParam(name, typ, desc string) apiParam {
	return apiParam{name: name, in: "query", typ: typ, desc: desc}
}

func pathParam(name, desc string) apiParam {
	return apiParam{name: name, in: "path", typ: "string", desc: desc, required: true}
}

// The query parameters specd reads, in specd's words.
var (
	pAllowWatchBookmarks = queryParam("allowWatchBookmarks", "boolean",
		"With watch=true: also send BOOKMARK events now and then, carrying only the resourceVersion the stream has reached.")
	pContinue = queryParam("continue", "string",
		"The continue token of the previous page of a list (metadata.continue), to read the next page with the same parameters.")
	pDryRun = queryParam("dryRun", "string",
		"All: check and answer as usual, but store nothing.")
	pFieldManager = queryParam("fieldManager", "string",
		"The name of the actor making the change, recorded in metadata.managedFields. Required for server-side apply.")
	pFieldSelector = queryParam("fieldSelector", "string",
		"Only objects whose fields match, such as metadata.name=x or a selectable field of the kind. Defaults to everything.")
	pFieldValidation = queryParam("fieldValidation", "string",
		"What to do with unknown or duplicate fields in the body: Ignore, Warn (the default: a Warning header) or Strict (400 BadRequest).")
	pForce = queryParam("force", "boolean",
		"Server-side apply only: take over fields that other managers own instead of failing with 409 Conflict.")
	pGracePeriod = queryParam("gracePeriodSeconds", "integer",
		"Seconds before the object is deleted; custom resources are deleted at once (or held by their finalizers).")
	pLabelSelector = queryParam("labelSelector", "string",
		"Only objects whose labels match, such as tier=gold,env!=dev. Defaults to everything.")
	pLimit = queryParam("limit", "integer",
		"The largest number of objects to answer with; metadata.continue then leads to the rest.")
	pOrphanDependents = queryParam("orphanDependents", "boolean",
		"Deprecated, use propagationPolicy: true is Orphan, false is Background.")
	pPropagation = queryParam("propagationPolicy", "string",
		"What happens to the objects this one owns: Orphan, Background (the default) or Foreground.")
	pResourceVersion = queryParam("resourceVersion", "string",
		"For a list: unset reads the latest state, 0 any state, a version a state at least that new (exactly that one with resourceVersionMatch=Exact). For a watch: start after that version.")
	pResourceVersionMatch = queryParam("resourceVersionMatch", "string",
		"How resourceVersion applies to a list: Exact or NotOlderThan.")
	pSendInitialEvents = queryParam("sendInitialEvents", "boolean",
		"With watch=true, resourceVersionMatch=NotOlderThan and allowWatchBookmarks: start with the current objects as ADDED events, then a BOOKMARK annotated k8s.io/initial-events-end.")
	pTimeoutSeconds = queryParam("timeoutSeconds", "integer",
		"With watch=true: end the stream after this many seconds.")
	pWatch = queryParam("watch", "boolean",
		"Answer a stream of watch events (one WatchEvent per line) for changes to the objects, instead of a list.")

	listParams             = []apiParam{pAllowWatchBookmarks, pContinue, pFieldSelector, pLabelSelector, pLimit, pResourceVersion, pResourceVersionMatch, pSendInitialEvents, pTimeoutSeconds, pWatch}
	writeParams            = []apiParam{pDryRun, pFieldManager, pFieldValidation}
	patchParams            = []apiParam{pDryRun, pFieldManager, pFieldValidation, pForce}
	deleteParams           = []apiParam{pDryRun, pGracePeriod, pOrphanDependents, pPropagation}
	deleteCollectionParams = []apiParam{pDryRun, pFieldSelector, pGracePeriod, pLabelSelector, pOrphanDependents, pPropagation}

	paramNamespace = pathParam("namespace", "object name and auth scope, such as for teams and projects")
)
