package engine

import (
	"context"
	"encoding/json"
	"log/slog"
	"runtime"
	"sync"
	"time"
	"weak"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/specd-io/specd/engine/fieldmanager"
	"github.com/specd-io/specd/schemas"
)

// fieldManagers caches one fieldmanager.Manager per resource version.
// Registry snapshots are immutable, so a *ResourceVersion is a stable key;
// a reload builds new ones, and the entries of the old ones go when they
// are collected (the key is a weak pointer).
type fieldManagers struct {
	m sync.Map // weak.Pointer[schemas.ResourceVersion] -> *fieldManagerEntry
	// now stamps the entries a write makes; log hears of those it
	// cannot make.
	now func() time.Time
	log *slog.Logger
}

type fieldManagerEntry struct {
	once sync.Once
	fm   *fieldmanager.Manager
	err  error
}

// of returns the field manager of rv, building it once.
func (f *fieldManagers) of(rv *schemas.ResourceVersion) (*fieldmanager.Manager, error) {
	key := weak.Make(rv)
	v, ok := f.m.Load(key)
	if !ok {
		var loaded bool
		if v, loaded = f.m.LoadOrStore(key, &fieldManagerEntry{}); !loaded {
			m := &f.m
			runtime.AddCleanup(rv, func(k weak.Pointer[schemas.ResourceVersion]) { m.Delete(k) }, key)
		}
	}
	e := v.(*fieldManagerEntry)
	e.once.Do(func() {
		e.fm, e.err = fieldmanager.New(rv.OpenAPI, rv.APIVersion(), rv.StatusSubresource)
	})
	return e.fm, e.err
}

// track sets metadata.managedFields of obj, the object w is about to
// store, as kube-apiserver's field manager does for an update operation:
// live is the stored object (nil on create), entries the managed fields
// to start from. Like kube-apiserver it never fails the write: on an error
// the managed fields are dropped and the error logged.
func (f *fieldManagers) track(w *write, live, obj map[string]any, entries []metav1.ManagedFieldsEntry) {
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		return
	}
	if w.opts.applied != nil {
		setManagedFields(md, w.opts.applied.entries)
		return
	}
	rv := w.Version
	fm, err := f.of(rv)
	if err == nil {
		var out []metav1.ManagedFieldsEntry
		// The field manager knows the status subresource only: an update
		// through another (a Namespace's finalize) is the object's.
		sub := ""
		if w.status() {
			sub = "status"
		}
		out, _, err = fm.Update(live, obj, entries, fieldmanager.Write{Manager: w.opts.FieldManager, Subresource: sub, Now: f.now()})
		if err == nil {
			setManagedFields(md, out)
			return
		}
	}
	f.log.LogAttrs(context.Background(), slog.LevelWarn, "managed fields not tracked",
		slog.String("resource", rv.Resource.GroupResource()), slog.Any("err", err))
	delete(md, "managedFields")
}

// updateEntries are the managed fields an update starts from, as
// kube-apiserver chooses them: the request's when it sends some (an empty
// list, or one empty entry, resets them), else the stored ones; a status
// write always starts from the stored ones.
func updateEntries(req, live []metav1.ManagedFieldsEntry, reqSet, status bool) []metav1.ManagedFieldsEntry {
	if status || !reqSet {
		return live
	}
	if len(req) == 0 || (len(req) == 1 && isEmptyEntry(req[0])) {
		return []metav1.ManagedFieldsEntry{}
	}
	return req
}

func isEmptyEntry(e metav1.ManagedFieldsEntry) bool {
	return e.Manager == "" && e.Operation == "" && e.APIVersion == "" && e.Time == nil &&
		e.FieldsType == "" && e.FieldsV1 == nil && e.Subresource == ""
}

// setManagedFields stores entries in a metadata tree in the form the
// encoder writes as kube-apiserver does; none removes the field.
func setManagedFields(md map[string]any, entries []metav1.ManagedFieldsEntry) {
	if len(entries) == 0 {
		delete(md, "managedFields")
		return
	}
	list := make([]any, len(entries))
	for i, e := range entries {
		m := make(map[string]any, 7)
		m["manager"] = e.Manager
		m["operation"] = string(e.Operation)
		m["apiVersion"] = e.APIVersion
		if e.Time != nil {
			m["time"] = e.Time.UTC().Format(time.RFC3339)
		}
		m["fieldsType"] = e.FieldsType
		if e.FieldsV1 != nil {
			m["fieldsV1"] = json.RawMessage(e.FieldsV1.Raw)
		}
		if e.Subresource != "" {
			m["subresource"] = e.Subresource
		}
		list[i] = m
	}
	md["managedFields"] = list
}

// trackCreate records a create in the new object's managed fields.
func (f *fieldManagers) trackCreate(w *write, req *request) {
	entries := updateEntries(req.meta.ManagedFields, nil, req.meta.ManagedFields != nil, false)
	f.track(w, nil, req.obj, entries)
}

// trackUpdate records an update of old in the new object's managed fields.
func (f *fieldManagers) trackUpdate(w *write, req *request, old *stored) {
	entries := updateEntries(req.meta.ManagedFields, old.meta.ManagedFields, req.meta.ManagedFields != nil, w.status())
	f.track(w, old.obj, req.obj, entries)
}
