package fieldmanager

import (
	"encoding/json"
	"errors"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
	"sigs.k8s.io/structured-merge-diff/v6/merge"
	"sigs.k8s.io/structured-merge-diff/v6/typed"
)

const (
	// kubectlManager is the manager of `kubectl apply --server-side`.
	kubectlManager = "kubectl"
	// lastAppliedAnnotation is where client-side kubectl apply keeps the
	// manifest it applied.
	lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"
)

// upgradeClientSideApply is kube-apiserver's lastAppliedManager: when
// kubectl's server-side apply conflicts only on fields whose live value is
// what the last-applied annotation says (fields a client-side apply set),
// the apply is forced; otherwise the conflicts left are returned.
func (m *Manager) upgradeClientSideApply(u *merge.Updater, live map[string]any, liveT, configT *typed.TypedValue, mf *managed, id string, applyErr error) (*typed.TypedValue, fieldpath.ManagedFields, error) {
	var conflicts merge.Conflicts
	if !errors.As(applyErr, &conflicts) {
		return nil, nil, applyErr
	}
	allowed := m.allowedFromLastApplied(live, liveT)
	if allowed == nil {
		return nil, nil, applyErr
	}
	var left merge.Conflicts
	for _, c := range conflicts {
		if !allowed.Has(c.Path) {
			left = append(left, c)
		}
	}
	if len(left) > 0 {
		return nil, nil, left
	}
	return u.Apply(liveT, configT, m.version, mf.copy().fields, id, true)
}

// allowedFromLastApplied are the fields of the last-applied annotation
// whose live value is the one it records; nil without an annotation.
func (m *Manager) allowedFromLastApplied(live map[string]any, liveT *typed.TypedValue) *fieldpath.Set {
	s, ok := annotation(live, lastAppliedAnnotation)
	if !ok || s == "" {
		return nil
	}
	var last map[string]any
	if err := json.Unmarshal([]byte(s), &last); err != nil {
		return nil
	}
	lastT, err := m.typ.FromUnstructured(last, typed.AllowDuplicates)
	if err != nil {
		return nil
	}
	set, err := lastT.ToFieldSet()
	if err != nil {
		return nil
	}
	cmp, err := lastT.Compare(liveT)
	if err != nil {
		return nil
	}
	return set.Difference(cmp.Modified).Difference(cmp.Added).Difference(cmp.Removed)
}

// syncLastApplied is kube-apiserver's lastAppliedUpdater: after kubectl's
// server-side apply, an object that has a last-applied annotation gets the
// applied configuration in it, so that a later client-side apply computes
// its patch from what was applied last. obj nil means the apply changed
// nothing; live is then the base.
func syncLastApplied(live, obj, config map[string]any) map[string]any {
	if _, ok := annotation(live, lastAppliedAnnotation); !ok {
		return obj
	}
	c := shallowWithMetadata(config)
	if md, ok := c["metadata"].(map[string]any); ok {
		if ann, ok := md["annotations"].(map[string]any); ok {
			cp := make(map[string]any, len(ann))
			for k, v := range ann {
				if k != lastAppliedAnnotation {
					cp[k] = v
				}
			}
			md["annotations"] = cp
		}
	}
	b, err := json.Marshal(c)
	if err != nil {
		return obj
	}
	if obj == nil {
		obj = live
	}
	obj = shallowWithMetadata(obj)
	md, _ := obj["metadata"].(map[string]any)
	if md == nil {
		md = map[string]any{}
		obj["metadata"] = md
	}
	ann, _ := md["annotations"].(map[string]any)
	cp := make(map[string]any, len(ann)+1)
	for k, v := range ann {
		cp[k] = v
	}
	cp[lastAppliedAnnotation] = string(b)
	md["annotations"] = cp
	return obj
}

func annotation(obj map[string]any, key string) (string, bool) {
	md, _ := obj["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	v, ok := ann[key].(string)
	return v, ok
}

// shallowWithMetadata copies obj and its metadata map, one level deep.
func shallowWithMetadata(obj map[string]any) map[string]any {
	c := make(map[string]any, len(obj))
	for k, v := range obj {
		c[k] = v
	}
	if md, ok := obj["metadata"].(map[string]any); ok {
		mc := make(map[string]any, len(md))
		for k, v := range md {
			mc[k] = v
		}
		c["metadata"] = mc
	}
	return c
}
