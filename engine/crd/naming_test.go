package crd

import (
	"testing"
)

func TestAcceptNames(t *testing.T) {
	taken := usedNames{resources: map[string]bool{"gadgets": true, "gadget": true, "gd": true}, kinds: map[string]bool{"Gadget": true, "GadgetList": true}}
	tests := map[string]struct {
		spec, accepted Names
		reason, msg    string
		got            Names
	}{
		"fresh names": {
			spec: Names{Plural: "widgets", Singular: "widget", Kind: "Widget", ShortNames: []string{"wd"}},
			got:  Names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList", ShortNames: []string{"wd"}},
		},
		"a short name taken": {
			spec:   Names{Plural: "widgets", Singular: "widget", Kind: "Widget", ShortNames: []string{"gd"}},
			reason: "ShortNamesConflict", msg: `"gd" is already in use`,
			got: Names{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
		},
		"a kind taken": {
			spec:   Names{Plural: "widgets", Singular: "widget", Kind: "Gadget"},
			reason: "ListKindConflict", msg: `"GadgetList" is already in use`,
			got: Names{Plural: "widgets", Singular: "widget"},
		},
		"a singular taken": {
			spec:   Names{Plural: "widgets", Singular: "gadget", Kind: "Widget"},
			reason: "SingularConflict", msg: `"gadget" is already in use`,
			got: Names{Plural: "widgets", Kind: "Widget", ListKind: "WidgetList"},
		},
		"its own names stay": {
			spec:     Names{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ShortNames: []string{"gd"}},
			accepted: Names{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList", ShortNames: []string{"gd"}},
			got:      Names{Plural: "gadgets", Singular: "gadget", Kind: "Gadget", ListKind: "GadgetList", ShortNames: []string{"gd"}},
		},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			o := &object{}
			o.Spec.Names, o.Status.AcceptedNames = tc.spec, tc.accepted
			got, cond := acceptNames(o, taken)
			wantStatus, wantReason, wantMsg := "True", "NoConflicts", "no conflicts found"
			if tc.reason != "" {
				wantStatus, wantReason, wantMsg = "False", tc.reason, tc.msg
			}
			if cond.Type != NamesAccepted || cond.Status != wantStatus || cond.Reason != wantReason || cond.Message != wantMsg {
				t.Errorf("condition %+v, want %s %s %q", cond, wantStatus, wantReason, wantMsg)
			}
			if !sameNames(got, tc.got) {
				t.Errorf("accepted %+v, want %+v", got, tc.got)
			}
		})
	}
}

func TestFieldPath(t *testing.T) {
	tests := map[string]string{
		"/spec/versions/0/schema/openAPIV3Schema/properties/spec": "spec.versions[0].schema.openAPIV3Schema.properties.spec",
		"/metadata/name":                        "metadata.name",
		"/spec/names/shortNames/1":              "spec.names.shortNames[1]",
		"/spec/versions/2/properties/a~1b/type": "spec.versions[2].properties.a/b.type",
		"":                                      "<root>",
	}
	for pointer, want := range tests {
		if got := fieldPath(pointer); got != want {
			t.Errorf("fieldPath(%q) = %q, want %q", pointer, got, want)
		}
	}
}
