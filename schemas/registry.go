package schemas

import (
	"fmt"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/specd-io/specd/schemas/structural"
)

// Scope says whether a resource's objects live in a namespace.
type Scope string

const (
	Namespaced Scope = "Namespaced"
	Cluster    Scope = "Cluster"
)

// NameValidation is the rule an object's metadata.name must follow when
// the object is created.
type NameValidation string

const (
	// DNSSubdomainNames are lowercase DNS subdomains, as custom resources'
	// names must be (the zero value means this too).
	DNSSubdomainNames NameValidation = "DNSSubdomain"
	// PathSegmentNames are any names that fit in a URL path segment (not
	// "." or "..", no "/" or "%"), as kube-apiserver allows for RBAC
	// roles and bindings ("system:discovery").
	PathSegmentNames NameValidation = "PathSegment"
)

// Registry is one immutable snapshot of everything specd serves.
type Registry struct {
	groups  []*Group // sorted by name
	byGroup map[string]*Group
	// indexes index each group's resources, so that a look-up (every
	// request makes one, every reload one per resource) costs the same
	// with thousands of resources in a group as with one.
	indexes map[string]*groupIndex
}

// groupIndex is a group's resources by plural, and by version and plural.
// An assembled group carries its own (Group.index), which registries
// sharing the group share.
type groupIndex struct {
	byPlural  layered[string, *Resource]
	byVersion layered[versionPlural, *ResourceVersion]
}

// next returns a copy of idx to change, sharing what it can (layered).
func (idx *groupIndex) next() *groupIndex {
	return &groupIndex{byPlural: idx.byPlural.next(), byVersion: idx.byVersion.next()}
}

type versionPlural struct{ version, plural string }

// Group is an API group and the versions it serves.
type Group struct {
	Name string
	// Versions are ordered by Kubernetes version priority (GA > beta >
	// alpha, higher numbers first), served or not: see ServedVersions
	// and PreferredVersion.
	Versions []*GroupVersion
	// Resources are the group's resources across all its versions, sorted
	// by plural name.
	Resources []*Resource
	// index is set by assembly, which changes the group no more; nil in
	// a group built by hand.
	index *groupIndex
}

// GroupVersion is one group version: one schema file.
type GroupVersion struct {
	Group   string
	Version string
	File    string // path of the schema file it was loaded from
	// AllowBreaking is the file's x-specd.allowBreaking: the operator lets
	// specd serve apply a change to this group version that breaks its
	// clients or stored objects when it reloads the schema directory.
	AllowBreaking bool
	// APIService is the file's x-specd.apiService: the priorities of the
	// group version's APIService in a host cluster; 0 for the defaults.
	APIService APIServicePriority
	// Resources are sorted by plural name, served or not (see
	// ServedResources).
	Resources []*ResourceVersion
}

// APIServicePriority are an APIService's groupPriorityMinimum and
// versionPriority; 0 is the default of whoever makes the APIService.
type APIServicePriority struct {
	GroupPriorityMinimum, VersionPriority int32
}

// Resource is a kind of a group, across every version that declares it.
type Resource struct {
	Group      string
	Kind       string
	ListKind   string // a CRD's names.listKind; Kind + "List" by default
	Plural     string
	Singular   string
	ShortNames []string
	Categories []string
	Scope      Scope
	// NameValidation is the rule for the names of new objects.
	NameValidation NameValidation
	// UnconditionalUpdate lets an update without metadata.resourceVersion
	// replace whatever is stored, as kube-apiserver lets it for its
	// built-in kinds (their strategies' AllowUnconditionalUpdate); other
	// resources require the resourceVersion, as CRDs do.
	UnconditionalUpdate bool
	// NoGeneration (x-specd-resource generation: false): objects have no
	// metadata.generation, as kube-apiserver's built-in kinds without a
	// spec (ConfigMap, Secret, Event, Lease, Namespace, RBAC) have none.
	NoGeneration bool
	// CRD is the name of the CustomResourceDefinition that declares the
	// resource (<plural>.<group>), "" for a specd schema file.
	CRD string
	// AllowBreaking is a CRD's specd.io/allow-breaking annotation: a
	// reload may apply a change to this resource that breaks its clients
	// or stored objects (GroupVersion.AllowBreaking for specd files).
	AllowBreaking bool
	// Terminating is set for a CRD object being deleted (it has a
	// deletionTimestamp): discovery then leaves out the verbs that make
	// or change objects, as kube-apiserver's does.
	Terminating bool
	// Installing is set for a CRD object whose names are accepted but
	// that is not Established yet: the resource is loaded (its schema
	// compiles with the others) but not served, as kube-apiserver lists
	// a CRD in discovery only once it is Established. ResourceVersion.Served
	// is false; Registry.Installing finds it.
	Installing bool
	// Verbs are the verbs of the main endpoint, sorted (x-specd-resource
	// verbs); nil serves every verb (AllVerbs). Use ServedVerbs or Serves.
	Verbs []string
	// StorageVersion is the version objects are stored in (the hub): of
	// StoredWith when that is set.
	StorageVersion string
	// StoredWith, when set, is the resource whose storage this one serves
	// (x-specd-resource storageResource): its objects are that
	// resource's, in this resource's group and versions, converted to and
	// from its storage version, as kube-apiserver serves events.k8s.io
	// events from the core events' storage. None of this resource's
	// versions is a storage version. Use StorageResource.
	StoredWith *Resource
	// Versions are in the group's version priority order.
	Versions []*ResourceVersion
}

// ResourceVersion is a resource as one version serves it.
type ResourceVersion struct {
	Resource *Resource
	Version  string
	Storage  bool
	File     string // schema file that declares it
	// FileDigest is the SHA-256 (hex) of File's content as it was loaded:
	// with File it tells whether two registries declare the version from
	// the same bytes (SameDeclaration). "" when built by hand.
	FileDigest string
	Pointer    string // JSON pointer of its schema in File
	// Hidden is true when the version is not served: served: false in its
	// x-specd-resource, or specd serve --disable. A hidden version is not
	// in discovery and not routed; its objects stay in storage. (The zero
	// value serves, so that registries built by hand serve everything.)
	Hidden bool
	// Deprecated versions answer every request with DeprecationWarning in
	// a Warning header (code 299), as kube-apiserver does for a deprecated
	// CRD version. DeprecationWarning is "" when Deprecated is false.
	Deprecated         bool
	DeprecationWarning string
	defaultWarning     bool // DeprecationWarning is kube's default message
	// ConversionRules is the decoded JSON list of x-specd-resource
	// conversion.rules (nil when not given; only non-storage versions may
	// have it), not interpreted here: package converters compiles it.
	// ConversionPointer is its JSON pointer in File, "" when not given.
	ConversionRules   []any
	ConversionPointer string
	// ConversionFile is the file ConversionPointer is in when it is not
	// File: a side file of conversion rules for a CRD.
	ConversionFile string
	// Subresources.
	StatusSubresource bool
	Scale             *ScaleSubresource // nil: no scale subresource
	PrinterColumns    []PrinterColumn
	SelectableFields  []SelectableField
	// Hooks are the plugins x-specd-hooks binds to this version; nil when
	// it has none.
	Hooks *Hooks
	// declAt is the pointer of the version's declaration in File:
	// x-specd-resource, or a CRD's /spec/versions/<i>; crd is true for
	// a CRD. "" when built by hand.
	declAt string
	crd    bool
	// Schema is the compiled object schema; apiVersion, kind and metadata
	// are implied and handled by the engine.
	Schema *structural.Schema
	// OpenAPI is the schema as written, with $refs resolved (Ref fields
	// keep their targets' names) and without the loader's x-specd-*
	// extensions, for publishing OpenAPI. Treat it as read-only.
	OpenAPI *openapi3.Schema
}

// PrinterColumn is an additional column for Table output, as in a CRD.
type PrinterColumn struct {
	Name        string
	Type        string
	Format      string
	Description string
	Priority    int32
	JSONPath    string
	// Count, for specd's built-in kinds only, makes the column the number
	// of entries of the maps or lists at these paths, instead of
	// JSONPath's value: kube's Data column of ConfigMaps and Secrets.
	Count []string
}

// SelectableField is a field that field selectors may use, as in a CRD.
type SelectableField struct {
	JSONPath string
}

// NewRegistry builds a registry from groups. Load is the usual way in; this
// is for callers that assemble groups themselves (tests, generators).
func NewRegistry(groups []*Group) *Registry {
	r := &Registry{groups: groups, byGroup: make(map[string]*Group, len(groups)),
		indexes: make(map[string]*groupIndex, len(groups))}
	for _, g := range groups {
		r.byGroup[g.Name] = g
		switch first := r.indexes[g.Name]; {
		case first != nil:
			// A second group of the name (built by hand): the first of
			// a name wins, as in a scan of the lists.
			idx := first.next()
			idx.add(g)
			r.indexes[g.Name] = idx
		case g.index != nil:
			r.indexes[g.Name] = g.index
		default:
			r.indexes[g.Name] = newGroupIndex(g)
		}
	}
	return r
}

func newGroupIndex(g *Group) *groupIndex {
	idx := &groupIndex{byPlural: newLayered[string, *Resource](len(g.Resources)),
		byVersion: newLayered[versionPlural, *ResourceVersion](len(g.Resources))}
	idx.add(g)
	return idx
}

// add adds g's resources to the index; the first of a name wins.
func (idx *groupIndex) add(g *Group) {
	for _, res := range g.Resources {
		if idx.byPlural.get(res.Plural) == nil {
			idx.byPlural.set(res.Plural, res)
		}
	}
	for _, gv := range g.Versions {
		for _, rv := range gv.Resources {
			if k := (versionPlural{gv.Version, rv.Resource.Plural}); idx.byVersion.get(k) == nil {
				idx.byVersion.set(k, rv)
			}
		}
	}
}

// addResource adds res, whose names no resource of the index has.
func (idx *groupIndex) addResource(res *Resource) {
	idx.byPlural.set(res.Plural, res)
	for _, rv := range res.Versions {
		idx.byVersion.set(versionPlural{rv.Version, res.Plural}, rv)
	}
}

// lookup is the resource version at group, version and plural, or nil.
func (r *Registry) lookup(group, version, plural string) *ResourceVersion {
	idx := r.indexes[group]
	if idx == nil {
		return nil
	}
	return idx.byVersion.get(versionPlural{version, plural})
}

// Groups returns every served group, sorted by name.
func (r *Registry) Groups() []*Group { return r.groups }

// Group returns the named group, or nil; nil when r is nil.
func (r *Registry) Group(name string) *Group {
	if r == nil {
		return nil
	}
	return r.byGroup[name]
}

// GroupVersion returns the served group version, or nil.
func (r *Registry) GroupVersion(group, version string) *GroupVersion {
	g := r.byGroup[group]
	if g == nil {
		return nil
	}
	for _, gv := range g.Versions {
		if gv.Version == version {
			return gv
		}
	}
	return nil
}

// Lookup returns the resource served at /apis/group/version/plural (or
// /api/version/plural for the core group, ""), or nil
// (also when that version of the resource is not served).
func (r *Registry) Lookup(group, version, plural string) *ResourceVersion {
	if rv := r.lookup(group, version, plural); rv != nil && rv.Served() {
		return rv
	}
	return nil
}

// Installing returns the resource version at group, version and plural
// when it would be served but for its CRD not being Established yet
// (Resource.Installing), nil otherwise.
func (r *Registry) Installing(group, version, plural string) *ResourceVersion {
	if rv := r.lookup(group, version, plural); rv != nil && !rv.Hidden && rv.Resource.Installing {
		return rv
	}
	return nil
}

// Resource returns the group's resource with the given plural, or nil.
func (g *Group) Resource(plural string) *Resource {
	for _, r := range g.Resources {
		if r.Plural == plural {
			return r
		}
	}
	return nil
}

// ServedVersions are the group's versions that serve at least one
// resource, in version priority order; discovery lists only these.
func (g *Group) ServedVersions() []*GroupVersion {
	out := make([]*GroupVersion, 0, len(g.Versions))
	for _, gv := range g.Versions {
		if gv.Served() {
			out = append(out, gv)
		}
	}
	return out
}

// PreferredVersion is the version clients should use by default: the
// served version of highest priority (GA, then beta, then alpha), or nil
// when no version is served.
func (g *Group) PreferredVersion() *GroupVersion {
	for _, gv := range g.Versions {
		if gv.Served() {
			return gv
		}
	}
	return nil
}

// Served reports whether the group version serves at least one resource.
func (gv *GroupVersion) Served() bool {
	for _, rv := range gv.Resources {
		if rv.Served() {
			return true
		}
	}
	return false
}

// ServedResources are the resources served in this group version, sorted
// by plural name.
func (gv *GroupVersion) ServedResources() []*ResourceVersion {
	out := make([]*ResourceVersion, 0, len(gv.Resources))
	for _, rv := range gv.Resources {
		if rv.Served() {
			out = append(out, rv)
		}
	}
	return out
}

// Namespaced reports whether objects of r live in namespaces.
func (r *Resource) Namespaced() bool { return r.Scope == Namespaced }

// GroupResource is plural.group, as Kubernetes names a resource in messages.
func (r *Resource) GroupResource() string {
	if r.Group == "" {
		return r.Plural
	}
	return r.Plural + "." + r.Group
}

// StorageResource is the resource whose storage holds r's objects: r, or
// StoredWith.
func (r *Resource) StorageResource() *Resource {
	if r.StoredWith != nil {
		return r.StoredWith
	}
	return r
}

// StorageAPIVersion is the apiVersion objects of r are stored in: the
// storage version of StorageResource, "" when there is none.
func (r *Resource) StorageAPIVersion() string {
	sr := r.StorageResource()
	if sr.StorageVersion == "" {
		return ""
	}
	return APIVersion(sr.Group, sr.StorageVersion)
}

// Version returns the resource as served in version v, or nil.
func (r *Resource) Version(v string) *ResourceVersion {
	for _, rv := range r.Versions {
		if rv.Version == v {
			return rv
		}
	}
	return nil
}

// Served reports whether the version is served: not Hidden, and its
// resource not Installing.
func (rv *ResourceVersion) Served() bool { return !rv.Hidden && !rv.Resource.Installing }

// APIVersion is "group/version", the value of an object's apiVersion:
// the version alone in the core group ("v1").
func (rv *ResourceVersion) APIVersion() string {
	return APIVersion(rv.Resource.Group, rv.Version)
}

// APIVersion is "group/version", or the version alone in the core group
// (group ""), as Kubernetes writes an apiVersion.
func APIVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}

// APIPath is the URL path of a group version: /api/v1 for the core
// group, /apis/<group>/<version> for any other.
func APIPath(group, version string) string {
	if group == "" {
		return "/api/" + version
	}
	return "/apis/" + group + "/" + version
}

// Problem is one thing wrong in a schema directory.
type Problem struct {
	File    string
	Pointer string // JSON pointer inside File, "" for the whole file
	Message string
}

func (p Problem) String() string {
	if p.Pointer == "" {
		return fmt.Sprintf("%s: %s", p.File, p.Message)
	}
	return fmt.Sprintf("%s#%s: %s", p.File, p.Pointer, p.Message)
}

// LoadError lists every problem found in a schema directory.
type LoadError struct {
	Problems []Problem
}

func (e *LoadError) Error() string {
	lines := make([]string, 0, len(e.Problems)+1)
	lines = append(lines, fmt.Sprintf("schemas: %d problem(s)", len(e.Problems)))
	for _, p := range e.Problems {
		lines = append(lines, "  "+p.String())
	}
	return strings.Join(lines, "\n")
}

// Resources returns every resource of the registry, group by group.
func (r *Registry) Resources() []*Resource {
	var out []*Resource
	for _, g := range r.groups {
		out = append(out, g.Resources...)
	}
	return out
}

// ServedStorage returns the storage version of the resource named
// plural.group, the version background work reads and writes it in; nil
// when r is nil or does not serve it.
func (r *Registry) ServedStorage(groupResource string) *ResourceVersion {
	if r == nil {
		return nil
	}
	res := r.Resource(groupResource)
	if res == nil || !res.Served() {
		return nil
	}
	return res.Version(res.StorageVersion)
}

// Holds tells whether res is r's resource of its name, as Resource finds
// it: to know a registry's own resources without listing them.
func (r *Registry) Holds(res *Resource) bool {
	return res != nil && r.resourceOf(res.Group, res.Plural) == res
}

// Resource returns the resource named plural.group (Resource.GroupResource),
// or nil.
func (r *Registry) Resource(groupResource string) *Resource {
	plural, group, _ := strings.Cut(groupResource, ".")
	return r.resourceOf(group, plural)
}
