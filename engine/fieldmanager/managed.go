package fieldmanager

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// managed is the decoded form of metadata.managedFields: a field set per
// manager identifier, and when each manager last changed something.
type managed struct {
	fields fieldpath.ManagedFields
	times  map[string]*metav1.Time
}

func newManaged() *managed {
	return &managed{fields: fieldpath.ManagedFields{}, times: map[string]*metav1.Time{}}
}

// managerID is kube-apiserver's manager identifier: the entry without its
// fields, time and type, and without the apiVersion for appliers.
func managerID(e metav1.ManagedFieldsEntry) (string, error) {
	e.FieldsType, e.FieldsV1, e.Time = "", nil, nil
	if e.Operation == metav1.ManagedFieldsOperationApply {
		e.APIVersion = ""
	}
	b, err := json.Marshal(&e)
	if err != nil {
		return "", fmt.Errorf("fieldmanager: manager identifier: %w", err)
	}
	return string(b), nil
}

// decodeManaged decodes managed fields entries.
func decodeManaged(entries []metav1.ManagedFieldsEntry) (*managed, error) {
	m := newManaged()
	for _, e := range entries {
		if e.Operation != metav1.ManagedFieldsOperationApply && e.Operation != metav1.ManagedFieldsOperationUpdate {
			return nil, fmt.Errorf("fieldmanager: operation must be Apply or Update, not %q", e.Operation)
		}
		if e.FieldsType != "FieldsV1" {
			return nil, fmt.Errorf("fieldmanager: unexpected fieldsType %q", e.FieldsType)
		}
		id, err := managerID(e)
		if err != nil {
			return nil, err
		}
		set := &fieldpath.Set{}
		if e.FieldsV1 != nil && len(e.FieldsV1.Raw) > 0 {
			if err := set.FromJSON(bytes.NewReader(e.FieldsV1.Raw)); err != nil {
				return nil, fmt.Errorf("fieldmanager: decode fieldsV1 of %s: %w", id, err)
			}
		}
		m.fields[id] = fieldpath.NewVersionedSet(set, fieldpath.APIVersion(e.APIVersion), e.Operation == metav1.ManagedFieldsOperationApply)
		m.times[id] = e.Time
	}
	return m, nil
}

// encode returns the entries of m in kube-apiserver's order: Apply before
// Update, then oldest first, then by manager, apiVersion, subresource.
func (m *managed) encode() ([]metav1.ManagedFieldsEntry, error) {
	if len(m.fields) == 0 {
		return nil, nil
	}
	out := make([]metav1.ManagedFieldsEntry, 0, len(m.fields))
	for id, vs := range m.fields {
		var e metav1.ManagedFieldsEntry
		if err := json.Unmarshal([]byte(id), &e); err != nil {
			return nil, fmt.Errorf("fieldmanager: manager identifier %s: %w", id, err)
		}
		e.APIVersion = string(vs.APIVersion())
		if vs.Applied() {
			e.Operation = metav1.ManagedFieldsOperationApply
		}
		e.FieldsType = "FieldsV1"
		raw, err := vs.Set().ToJSON()
		if err != nil {
			return nil, fmt.Errorf("fieldmanager: encode fields of %s: %w", id, err)
		}
		e.FieldsV1 = &metav1.FieldsV1{Raw: raw}
		e.Time = m.times[id]
		out = append(out, e)
	}
	sort.Slice(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		ps, qs := unix(p.Time), unix(q.Time)
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	return out, nil
}

func unix(t *metav1.Time) int64 {
	if t == nil {
		return 0
	}
	return t.Unix()
}

// equal reports whether two managed states encode the same.
func (m *managed) equal(o *managed) bool {
	if !m.fields.Equals(o.fields) || len(m.times) != len(o.times) {
		return false
	}
	for id, t := range m.times {
		ot, ok := o.times[id]
		if !ok || unix(t) != unix(ot) {
			return false
		}
	}
	return true
}

func (m *managed) copy() *managed {
	c := newManaged()
	for k, v := range m.fields {
		c.fields[k] = v
	}
	for k, v := range m.times {
		c.times[k] = v
	}
	return c
}

// maxUpdateManagers is how many Update entries kube-apiserver keeps; older
// ones are merged into one "ancient-changes" entry per apiVersion.
const (
	maxUpdateManagers = 10
	ancientChanges    = "ancient-changes"
)

// capUpdateManagers merges the oldest Update entries as kube-apiserver does.
func (m *managed) capUpdateManagers() error {
	var updaters []string
	for id, vs := range m.fields {
		if !vs.Applied() {
			updaters = append(updaters, id)
		}
	}
	if len(updaters) <= maxUpdateManagers {
		return nil
	}
	sort.Slice(updaters, func(i, j int) bool {
		is, js := unix(m.times[updaters[i]]), unix(m.times[updaters[j]])
		if is != js {
			return is < js
		}
		return updaters[i] < updaters[j]
	})
	first := map[string]string{}
	for i, n := 0, len(updaters); i < len(updaters) && n > maxUpdateManagers; i++ {
		id := updaters[i]
		vs, t := m.fields[id], m.times[id]
		version := string(vs.APIVersion())
		bucket, err := managerID(metav1.ManagedFieldsEntry{Manager: ancientChanges, Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: version})
		if err != nil {
			return err
		}
		f, seen := first[version]
		if !seen {
			first[version] = id
			continue
		}
		if _, ok := m.fields[bucket]; !ok {
			m.fields[bucket] = m.fields[f]
			delete(m.fields, f)
			delete(m.times, f)
		}
		m.fields[bucket] = fieldpath.NewVersionedSet(vs.Set().Union(m.fields[bucket].Set()), vs.APIVersion(), vs.Applied())
		delete(m.fields, id)
		delete(m.times, id)
		m.times[bucket] = t
		n--
	}
	return nil
}

// now is the time an entry records: UTC, whole seconds.
func now(t time.Time) *metav1.Time {
	mt := metav1.NewTime(t.UTC().Truncate(time.Second))
	return &mt
}
