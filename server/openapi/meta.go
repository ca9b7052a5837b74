package openapi

import (
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// The meta.k8s.io/v1 (and autoscaling/v1 Scale) schemas every document
// carries are derived from apimachinery's own Go types and their
// SwaggerDoc descriptions, so they say what kube-apiserver's say and follow
// the library when it changes. They are built once per process and shared,
// read-only, by every document.

const (
	metaPrefix  = "io.k8s.apimachinery.pkg.apis.meta.v1."
	nameStatus  = metaPrefix + "Status"
	namePatch   = metaPrefix + "Patch"
	nameDelete  = metaPrefix + "DeleteOptions"
	nameWatch   = metaPrefix + "WatchEvent"
	nameObjMeta = metaPrefix + "ObjectMeta"
	nameList    = metaPrefix + "ListMeta"
	nameScale   = "io.k8s.api.autoscaling.v1.Scale"
	v3RefPrefix = "#/components/schemas/"
)

// metaRoots are the types the paths refer to; the types their fields use
// come along.
var metaRoots = []any{
	metav1.ObjectMeta{}, metav1.ListMeta{}, metav1.Status{}, metav1.DeleteOptions{}, metav1.WatchEvent{},
}

// metaGVKs are the kinds kube-apiserver publishes these types as.
var metaGVKs = map[string]oaGVK{
	nameStatus: {Version: "v1", Kind: "Status"},
	nameDelete: {Version: "v1", Kind: "DeleteOptions"},
	nameWatch:  {Version: "v1", Kind: "WatchEvent"},
	nameScale:  {Group: "autoscaling", Version: "v1", Kind: "Scale"},
}

// ownDocs are descriptions apimachinery has no SwaggerDoc for.
var ownDocs = map[string]map[string]string{
	nameWatch: {
		"":       "Event represents a single event to a watched resource: one line of a watch stream.",
		"type":   "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR.",
		"object": "The object as it is after the event (as it was before, for DELETED); a Status for ERROR; only apiVersion, kind and metadata.resourceVersion for BOOKMARK.",
	},
}

var (
	metaOnce      sync.Once
	metaSchemaMap map[string]any // without Scale
	scaleSchemas  map[string]any // Scale and the types it uses
)

// metaSchemas returns the shared meta schemas (v3 form), and those of the
// scale subresource when withScale. Callers must not modify them.
func metaSchemas(withScale bool) (meta, scale map[string]any) {
	metaOnce.Do(func() {
		metaSchemaMap = make(map[string]any)
		for _, v := range metaRoots {
			goSchema(reflect.TypeOf(v), metaSchemaMap)
		}
		metaSchemaMap[namePatch] = map[string]any{
			// No type: a JSON patch is an array, the other patches objects.
			"description": (metav1.Patch{}).SwaggerDoc()[""] +
				" A JSON patch (application/json-patch+json) is an array of operations; a merge patch or an apply configuration is an object.",
		}
		scaleSchemas = make(map[string]any)
		goSchema(reflect.TypeOf(autoscalingv1.Scale{}), scaleSchemas)
		for name := range metaSchemaMap {
			delete(scaleSchemas, name) // ObjectMeta and the types it uses
		}
	})
	if withScale {
		return metaSchemaMap, scaleSchemas
	}
	return metaSchemaMap, nil
}

// encodedMeta are the meta schemas encoded, in v3 and v2 form, once.
var encodedMeta struct {
	once                     sync.Once
	v3, v3Scale, v2, v2Scale map[string]json.RawMessage
}

// metaEncoded returns the encoded meta schemas (v2: Swagger 2.0 form), and
// those of the scale subresource too when withScale. Callers must not
// modify the map.
func metaEncoded(v2, withScale bool) map[string]json.RawMessage {
	encodedMeta.once.Do(func() {
		meta, scale := metaSchemas(true)
		enc := func(schemas map[string]any, convert bool, into ...map[string]json.RawMessage) {
			for name, s := range schemas {
				m := s.(map[string]any)
				if convert {
					m = v2Schema(m)
				}
				for _, i := range into {
					i[name] = mustJSON(m)
				}
			}
		}
		e := &encodedMeta
		e.v3, e.v3Scale, e.v2, e.v2Scale = map[string]json.RawMessage{}, map[string]json.RawMessage{}, map[string]json.RawMessage{}, map[string]json.RawMessage{}
		enc(meta, false, e.v3, e.v3Scale)
		enc(scale, false, e.v3Scale)
		enc(meta, true, e.v2, e.v2Scale)
		enc(scale, true, e.v2Scale)
	})
	switch {
	case v2 && withScale:
		return encodedMeta.v2Scale
	case v2:
		return encodedMeta.v2
	case withScale:
		return encodedMeta.v3Scale
	}
	return encodedMeta.v3
}

var (
	typeTime      = reflect.TypeOf(metav1.Time{})
	typeMicroTime = reflect.TypeOf(metav1.MicroTime{})
	typeFieldsV1  = reflect.TypeOf(metav1.FieldsV1{})
	typeRaw       = reflect.TypeOf(runtime.RawExtension{})
)

// goSchema is the schema of a value of Go type t as encoding/json writes
// it; named structs are added to defs and referred to.
func goSchema(t reflect.Type, defs map[string]any) map[string]any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t {
	case typeTime, typeMicroTime:
		return map[string]any{"type": "string", "format": "date-time"}
	case typeFieldsV1, typeRaw:
		return map[string]any{"type": "object"}
	}
	switch t.Kind() {
	case reflect.String:
		return map[string]any{"type": "string"}
	case reflect.Bool:
		return map[string]any{"type": "boolean"}
	case reflect.Int32:
		return map[string]any{"type": "integer", "format": "int32"}
	case reflect.Int, reflect.Int64:
		return map[string]any{"type": "integer", "format": "int64"}
	case reflect.Slice:
		return map[string]any{"type": "array", "items": goSchema(t.Elem(), defs)}
	case reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": goSchema(t.Elem(), defs)}
	case reflect.Struct:
		name := goTypeName(t)
		if _, done := defs[name]; !done {
			defs[name] = nil // a cycle stops here
			defs[name] = structSchema(t, name, defs)
		}
		return map[string]any{"$ref": v3RefPrefix + name}
	}
	panic("openapi: no schema for Go type " + t.String())
}

// structSchema is the object schema of struct type t.
func structSchema(t reflect.Type, name string, defs map[string]any) map[string]any {
	docs := swaggerDoc(t, name)
	props := make(map[string]any)
	var required []string
	addStructFields(t, docs, defs, props, &required)
	s := map[string]any{"type": "object", "properties": props}
	if d := docs[""]; d != "" {
		s["description"] = d
	}
	if len(required) > 0 {
		s["required"] = required
	}
	if gvk, ok := metaGVKs[name]; ok {
		s[extGVK] = []oaGVK{gvk}
	}
	return s
}

func addStructFields(t reflect.Type, docs map[string]string, defs, props map[string]any, required *[]string) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		jsonName, opts, _ := strings.Cut(tag, ",")
		if jsonName == "-" || !f.IsExported() {
			continue
		}
		if f.Anonymous && jsonName == "" {
			// An embedded struct (TypeMeta), as encoding/json writes it:
			// its fields, with its descriptions.
			addStructFields(f.Type, swaggerDoc(f.Type, ""), defs, props, required)
			continue
		}
		if jsonName == "" {
			jsonName = f.Name
		}
		p := goSchema(f.Type, defs)
		if d := docs[jsonName]; d != "" {
			if _, isRef := p["$ref"]; isRef {
				p = map[string]any{"allOf": []any{p}}
			}
			p["description"] = d
		}
		props[jsonName] = p
		if !strings.Contains(opts, "omitempty") && f.Type.Kind() != reflect.Pointer {
			*required = append(*required, jsonName)
		}
	}
}

// swaggerDoc returns the field descriptions apimachinery generates for t
// (SwaggerDoc), or specd's own for the types that have none.
func swaggerDoc(t reflect.Type, name string) map[string]string {
	if d, ok := ownDocs[name]; ok {
		return d
	}
	if doc, ok := reflect.Zero(t).Interface().(interface{ SwaggerDoc() map[string]string }); ok {
		return doc.SwaggerDoc()
	}
	return nil
}

// goTypeName is kube-openapi's name of a Go type: the package path with its
// domain reversed (k8s.io/api/autoscaling/v1 -> io.k8s.api.autoscaling.v1)
// and the type name.
func goTypeName(t reflect.Type) string {
	domain, rest, _ := strings.Cut(t.PkgPath(), "/")
	parts := strings.Split(domain, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + strings.ReplaceAll(rest, "/", ".") + "." + t.Name()
}
