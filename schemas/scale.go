package schemas

import (
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
)

// ScaleSubresource is a resource's scale subresource, as in a CRD: where
// an autoscaling/v1 Scale's spec.replicas, status.replicas and
// status.selector live in the object (simple dot paths).
type ScaleSubresource struct {
	SpecReplicasPath   string
	StatusReplicasPath string
	LabelSelectorPath  string // "" when the Scale has no selector
}

// decodeScale reads subresources.scale and checks it as kube-apiserver
// checks a CRD's: specReplicasPath under .spec and statusReplicasPath
// under .status (both required, integers in the schema), labelSelectorPath
// under .spec or .status (a string in the schema).
func decodeScale(d decoder, m map[string]any, ext string, s *openapi3.Schema) *ScaleSubresource {
	sub, ok := m["subresources"].(map[string]any)
	if !ok {
		return nil
	}
	v, present := sub["scale"]
	if !present {
		return nil
	}
	at := ptr(ext, "subresources", "scale")
	sm, ok := d.object(v, at, "specReplicasPath", "statusReplicasPath", "labelSelectorPath")
	if !ok {
		return nil
	}
	var sc ScaleSubresource
	sc.SpecReplicasPath, _ = d.str(sm, "specReplicasPath", at)
	sc.StatusReplicasPath, _ = d.str(sm, "statusReplicasPath", at)
	sc.LabelSelectorPath, _ = d.str(sm, "labelSelectorPath", at)
	good := d.checkScalePath(at, s, scalePath{"specReplicasPath", sc.SpecReplicasPath, true, []string{".spec."}, "integer"})
	good = d.checkScalePath(at, s, scalePath{"statusReplicasPath", sc.StatusReplicasPath, true, []string{".status."}, "integer"}) && good
	good = d.checkScalePath(at, s, scalePath{"labelSelectorPath", sc.LabelSelectorPath, false, []string{".spec.", ".status."}, "string"}) && good
	if !good {
		return nil
	}
	return &sc
}

// scalePath is one path of the scale subresource and what it must be: a
// field of type typ under one of under.
type scalePath struct {
	field    string
	path     string
	required bool
	under    []string
	typ      string
}

// checkScalePath checks one path of the scale subresource declared at at
// against the schema s.
func (d decoder) checkScalePath(at string, s *openapi3.Schema, sp scalePath) bool {
	field, p, required, under, typ := sp.field, sp.path, sp.required, sp.under, sp.typ
	fat := ptr(at, field)
	switch {
	case p == "" && required:
		d.probs.add(d.file, fat, "%s is required", field)
		return false
	case p == "":
		return true
	case strings.ContainsAny(p, "[]*"):
		d.probs.add(d.file, fat, "%s %q: must be a simple json path in dot notation", field, p)
		return false
	}
	okPrefix := false
	for _, u := range under {
		okPrefix = okPrefix || strings.HasPrefix(p, u)
	}
	if !okPrefix {
		d.probs.add(d.file, fat, "%s %q: should be a json path under %s", field, p, strings.Join(trimDots(under), " or "))
		return false
	}
	cur := s
	for _, seg := range strings.Split(p[1:], ".") {
		if seg == "" {
			d.probs.add(d.file, fat, "%s %q: empty field name", field, p)
			return false
		}
		if cur = childSchema(cur, seg); cur == nil {
			d.probs.add(d.file, fat, "%s %q: the schema has no field %q there", field, p, seg)
			return false
		}
	}
	if cur.Type == nil || !cur.Type.Is(typ) {
		d.probs.add(d.file, fat, "%s %q: must be a field of type %s in the schema", field, p, typ)
		return false
	}
	return true
}

func trimDots(list []string) []string {
	out := make([]string, len(list))
	for i, s := range list {
		out[i] = strings.TrimSuffix(s, ".")
	}
	return out
}
