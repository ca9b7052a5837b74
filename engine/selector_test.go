package engine

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/specd-io/specd/schemas"
)

func selectorRV() *schemas.ResourceVersion {
	return &schemas.ResourceVersion{Resource: nsResource, Version: "v1",
		SelectableFields: []schemas.SelectableField{{JSONPath: ".spec.color"}, {JSONPath: ".spec.size"}, {JSONPath: ".spec.on"}}}
}

func TestParseSelector(t *testing.T) {
	rv := selectorRV()
	tests := map[string]struct {
		labels, fields string
		wantErr        string // the Status message; "" for success
		empty          bool
	}{
		"nothing":             {empty: true},
		"blank":               {labels: " ", fields: " ", empty: true},
		"equality":            {labels: "tier=gold"},
		"double equals":       {labels: "tier==gold"},
		"not equals":          {labels: "tier!=gold"},
		"set":                 {labels: "tier in (gold,silver),env notin (dev)"},
		"exists":              {labels: "tier,!env"},
		"bad label":           {labels: "tier in (gold", wantErr: "unable to parse requirement: found '', expected: ',' or ')'"},
		"bad label value":     {labels: "tier=a b", wantErr: "found 'b', expected: ',' or 'end of string'"},
		"name field":          {fields: "metadata.name=w1"},
		"namespace field":     {fields: "metadata.namespace!=default"},
		"selectable field":    {fields: "spec.color=red,spec.size==3"},
		"unsupported field":   {fields: "spec.tags=a", wantErr: "field label not supported: spec.tags"},
		"metadata label":      {fields: "metadata.uid=x", wantErr: "field label not supported: metadata.uid"},
		"field without value": {fields: "spec.color", wantErr: "invalid selector: 'spec.color'; can't understand 'spec.color'"},
		"both":                {labels: "tier", fields: "spec.color=red"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSelector(rv, tc.labels, tc.fields)
			if tc.wantErr != "" {
				if !apierrors.IsBadRequest(err) {
					t.Fatalf("err %v, want a BadRequest", err)
				}
				if err.Error() != tc.wantErr {
					t.Fatalf("message %q, want %q", err.Error(), tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Empty() != tc.empty {
				t.Fatalf("Empty() = %v", s.Empty())
			}
		})
	}
}

func TestSelectorMatches(t *testing.T) {
	rv := selectorRV()
	obj := []byte(`{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w1","namespace":"default",` +
		`"labels":{"tier":"gold","app.kubernetes.io/name":"shop"}},"spec":{"color":"red","size":3,"on":true}}`)
	bare := []byte(`{"apiVersion":"g.example.com/v1","kind":"Widget","metadata":{"name":"w2","namespace":"other"},"spec":{}}`)
	tests := map[string]struct {
		labels, fields string
		obj            []byte
		want           bool
	}{
		"empty":                  {obj: obj, want: true},
		"label equal":            {labels: "tier=gold", obj: obj, want: true},
		"label differs":          {labels: "tier=silver", obj: obj},
		"label not equal":        {labels: "tier!=silver", obj: obj, want: true},
		"not equal when absent":  {labels: "tier!=silver", obj: bare, want: true},
		"in":                     {labels: "tier in (silver,gold)", obj: obj, want: true},
		"notin":                  {labels: "tier notin (silver,gold)", obj: obj},
		"notin when absent":      {labels: "tier notin (gold)", obj: bare, want: true},
		"exists":                 {labels: "app.kubernetes.io/name", obj: obj, want: true},
		"exists absent":          {labels: "tier", obj: bare},
		"not exists":             {labels: "!tier", obj: bare, want: true},
		"not exists present":     {labels: "!tier", obj: obj},
		"all of them":            {labels: "tier=gold,app.kubernetes.io/name in (shop)", obj: obj, want: true},
		"one of them fails":      {labels: "tier=gold,env=prod", obj: obj},
		"name":                   {fields: "metadata.name=w1", obj: obj, want: true},
		"name differs":           {fields: "metadata.name=w2", obj: obj},
		"namespace":              {fields: "metadata.namespace!=default", obj: bare, want: true},
		"string field":           {fields: "spec.color=red", obj: obj, want: true},
		"integer field":          {fields: "spec.size=3", obj: obj, want: true},
		"boolean field":          {fields: "spec.on=true", obj: obj, want: true},
		"absent field is empty":  {fields: "spec.color=", obj: bare, want: true},
		"absent field not equal": {fields: "spec.color!=red", obj: bare, want: true},
		"labels and fields":      {labels: "tier=gold", fields: "spec.color=blue", obj: obj},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			s, err := ParseSelector(rv, tc.labels, tc.fields)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Matches(rv, tc.obj); got != tc.want {
				t.Fatalf("Matches = %v, want %v", got, tc.want)
			}
		})
	}
	var zero Selector
	if !zero.Empty() || !zero.Matches(rv, obj) {
		t.Fatal("the zero Selector must match everything")
	}
}
