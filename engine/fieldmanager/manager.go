package fieldmanager

import (
	"fmt"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

// Manager tracks the managed fields of one resource version, as
// kube-apiserver's field manager does for a custom resource. It is
// immutable and safe for concurrent use.
type Manager struct {
	typ     *typed.ParseableType
	version fieldpath.APIVersion
	// main and status are the updaters of the main endpoint and of the
	// status subresource: each ignores the fields the other owns.
	main, status *merge.Updater
	// mainResetsStatus is set when status is a subresource: the main
	// endpoint does not own it.
	mainResetsStatus bool
}

// stripSet are the fields no manager owns (kube-apiserver's stripMeta).
var stripSet = fieldpath.NewSet(
	fieldpath.MakePathOrDie("apiVersion"),
	fieldpath.MakePathOrDie("kind"),
	fieldpath.MakePathOrDie("metadata"),
	fieldpath.MakePathOrDie("metadata", "name"),
	fieldpath.MakePathOrDie("metadata", "namespace"),
	fieldpath.MakePathOrDie("metadata", "creationTimestamp"),
	fieldpath.MakePathOrDie("metadata", "selfLink"),
	fieldpath.MakePathOrDie("metadata", "uid"),
	fieldpath.MakePathOrDie("metadata", "clusterName"),
	fieldpath.MakePathOrDie("metadata", "generation"),
	fieldpath.MakePathOrDie("metadata", "managedFields"),
	fieldpath.MakePathOrDie("metadata", "resourceVersion"),
)

// New returns the Manager of a resource version from its structural
// schema; apiVersion is group/version.
func New(s *openapi3.Schema, apiVersion string, statusSubresource bool) (*Manager, error) {
	t, err := TypeFromOpenAPI(s)
	if err != nil {
		return nil, err
	}
	v := fieldpath.APIVersion(apiVersion)
	m := &Manager{typ: t, version: v, mainResetsStatus: statusSubresource}
	conv := versionConverter{typ: t, version: v}
	mainReset, statusReset := fieldpath.NewSet(), fieldpath.NewSet(fieldpath.MakePathOrDie("spec"))
	if statusSubresource {
		mainReset = fieldpath.NewSet(fieldpath.MakePathOrDie("status"))
	}
	m.main = (&merge.UpdaterBuilder{Converter: conv,
		IgnoreFilter: fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{v: mainReset})}).BuildUpdater()
	m.status = (&merge.UpdaterBuilder{Converter: conv,
		IgnoreFilter: fieldpath.NewExcludeFilterSetMap(map[fieldpath.APIVersion]*fieldpath.Set{v: statusReset})}).BuildUpdater()
	return m, nil
}

// versionConverter moves a typed object to another version of the same
// resource by re-typing the value, without the resource's conversion
// rules: exact between versions of one shape, and blind to a field the
// rules rename (docs/patch.md, "What is not there yet").
type versionConverter struct {
	typ     *typed.ParseableType
	version fieldpath.APIVersion
}

func (c versionConverter) Convert(obj *typed.TypedValue, version fieldpath.APIVersion) (*typed.TypedValue, error) {
	if version == c.version {
		return obj, nil
	}
	return c.typ.FromUnstructured(obj.AsValue().Unstructured(), typed.AllowDuplicates)
}

func (versionConverter) IsMissingVersionError(error) bool { return false }

func (m *Manager) updater(subresource string) *merge.Updater {
	if subresource == "status" {
		return m.status
	}
	return m.main
}

// Write is one write to track.
type Write struct {
	Manager     string // the fieldManager, or the user agent's prefix
	Subresource string // "" or "status"
	Now         time.Time
}

// Update returns the managed fields of obj after an update (a create when
// live is nil), starting from entries. It reports changed false when the
// entries stay as they were; entries nil means the object has none (an
// object that has no managed fields is not tracked on update, as
// kube-apiserver does).
func (m *Manager) Update(live, obj map[string]any, entries []metav1.ManagedFieldsEntry, w Write) (out []metav1.ManagedFieldsEntry, changed bool, err error) {
	mf, err := decodeManaged(entries)
	if err != nil {
		mf = newManaged()
	}
	if len(mf.fields) == 0 && live != nil {
		return nil, len(entries) > 0, nil
	}
	if len(mf.fields) == 0 && live == nil && w.Subresource == "" {
		if fields, ok := m.createFields(obj, m.mainResetsStatus); ok {
			return m.createEntry(fields, w)
		}
	}
	before := mf.copy()
	if err := m.update(live, obj, mf, w); err != nil {
		return nil, false, err
	}
	if mf.equal(before) {
		return entries, false, nil
	}
	out, err = mf.encode()
	return out, true, err
}

// update is kube-apiserver's Update chain: the change is computed as
// "current-operation", stripped of the server's fields, then merged into
// the manager's entry with a new time.
func (m *Manager) update(live, obj map[string]any, mf *managed, w Write) error {
	liveT, err := m.typed(live)
	if err != nil {
		return err
	}
	objT, err := m.typed(obj)
	if err != nil {
		return err
	}
	const self = "current-operation"
	_, fields, err := m.updater(w.Subresource).Update(liveT, objT, m.version, mf.fields, self)
	if err != nil {
		return err
	}
	mf.fields = fields
	strip(mf, self)
	if vs, ok := mf.fields[self]; ok {
		delete(mf.fields, self)
		id, err := m.id(w, metav1.ManagedFieldsOperationUpdate)
		if err != nil {
			return err
		}
		if prev, ok := mf.fields[id]; ok {
			vs = fieldpath.NewVersionedSet(vs.Set().Union(prev.Set()), vs.APIVersion(), vs.Applied())
		}
		mf.fields[id] = vs
		mf.times[id] = now(w.Now)
	}
	return mf.capUpdateManagers()
}

func (m *Manager) id(w Write, op metav1.ManagedFieldsOperationType) (string, error) {
	name := w.Manager
	if name == "" {
		name = "unknown"
	}
	return managerID(metav1.ManagedFieldsEntry{Manager: name, Operation: op, APIVersion: string(m.version), Subresource: w.Subresource})
}

func strip(mf *managed, id string) {
	vs, ok := mf.fields[id]
	if !ok {
		return
	}
	s := vs.Set().Difference(stripSet)
	if s.Empty() {
		delete(mf.fields, id)
		return
	}
	mf.fields[id] = fieldpath.NewVersionedSet(s, vs.APIVersion(), vs.Applied())
}

// typed converts an object, without its managedFields, to a typed value;
// nil is the empty object.
func (m *Manager) typed(obj map[string]any) (*typed.TypedValue, error) {
	if obj == nil {
		obj = map[string]any{}
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		if _, has := md["managedFields"]; has {
			c := make(map[string]any, len(obj))
			for k, v := range obj {
				c[k] = v
			}
			mc := make(map[string]any, len(md))
			for k, v := range md {
				if k != "managedFields" {
					mc[k] = v
				}
			}
			c["metadata"] = mc
			obj = c
		}
	}
	return m.typ.FromUnstructured(obj, typed.AllowDuplicates)
}

// Apply merges config, applied by w.Manager, into live (nil when the object
// does not exist yet) and returns the new object and its managed fields.
// obj is nil when the apply changes nothing. Conflicts are a merge.Conflicts
// error unless force.
func (m *Manager) Apply(live, config map[string]any, entries []metav1.ManagedFieldsEntry, w Write, force bool) (obj map[string]any, out []metav1.ManagedFieldsEntry, err error) {
	mf, err := decodeManaged(entries)
	if err != nil {
		mf = newManaged()
	}
	if len(mf.fields) == 0 && live != nil {
		// Before the first apply, what the object holds belongs to
		// "before-first-apply".
		first := Write{Manager: "before-first-apply", Subresource: w.Subresource, Now: w.Now}
		if err := m.update(nil, live, mf, first); err != nil {
			return nil, nil, err
		}
	}
	liveT, err := m.typed(live)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create typed live object: %w", err)
	}
	configT, err := m.typ.FromUnstructured(config)
	if err != nil {
		return nil, nil, fmt.Errorf("failed to create typed patch object: %w", err)
	}
	id, err := m.id(w, metav1.ManagedFieldsOperationApply)
	if err != nil {
		return nil, nil, err
	}
	newT, fields, err := m.updater(w.Subresource).Apply(liveT, configT, m.version, mf.fields, id, force)
	if err != nil && w.Manager == kubectlManager {
		// kubectl's server-side apply may take over what its client-side
		// apply set, as the last-applied annotation shows.
		newT, fields, err = m.upgradeClientSideApply(m.updater(w.Subresource), live, liveT, configT, mf, id, err)
	}
	if err != nil {
		return nil, nil, err
	}
	mf.fields = fields
	strip(mf, id)
	if newT != nil {
		mf.times[id] = now(w.Now)
		u, ok := newT.AsValue().Unstructured().(map[string]any)
		if !ok {
			return nil, nil, fmt.Errorf("fieldmanager: applied object is not an object")
		}
		obj = u
	}
	if w.Manager == kubectlManager {
		obj = syncLastApplied(live, obj, config)
	}
	if err := mf.capUpdateManagers(); err != nil {
		return nil, nil, err
	}
	out, err = mf.encode()
	return obj, out, err
}

// createEntry is the one entry of a create tracked by createFields.
func (m *Manager) createEntry(fields []byte, w Write) ([]metav1.ManagedFieldsEntry, bool, error) {
	if len(fields) <= 2 { // {}: nothing owned
		return nil, false, nil
	}
	name := w.Manager
	if name == "" {
		name = "unknown"
	}
	return []metav1.ManagedFieldsEntry{{
		Manager: name, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: string(m.version),
		Time: now(w.Now), FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: fields},
	}}, true, nil
}
