package crd

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tidwall/gjson"
	"github.com/tidwall/sjson"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
)

// Names are a CRD's spec.names, and status.acceptedNames.
type Names struct {
	Plural     string   `json:"plural"`
	Singular   string   `json:"singular,omitempty"`
	ShortNames []string `json:"shortNames,omitempty"`
	Kind       string   `json:"kind"`
	ListKind   string   `json:"listKind,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// object is what the package reads of a stored CRD.
type object struct {
	Meta struct {
		Name              string   `json:"name"`
		DeletionTimestamp *string  `json:"deletionTimestamp"`
		Finalizers        []string `json:"finalizers"`
	} `json:"metadata"`
	Spec struct {
		Group string `json:"group"`
		Names Names  `json:"names"`
	} `json:"spec"`
	Status status `json:"status"`
	// No reference to the bytes it was decoded from: the API keeps an
	// object per CRD, and those bytes are the watch cache's encoding,
	// shared with its bounded window of events; kept here, each CRD's
	// would outlive the window (servedDecls reads them once, in Apply).
}

type status struct {
	Conditions     []Condition `json:"conditions,omitempty"`
	AcceptedNames  Names       `json:"acceptedNames"`
	StoredVersions []string    `json:"storedVersions,omitempty"`
}

func decode(data []byte) (*object, error) {
	var o object
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("crd: decode: %w", err)
	}
	return &o, nil
}

func (o *object) deleting() bool { return o.Meta.DeletionTimestamp != nil }

func (o *object) hasFinalizer() bool { return slices.Contains(o.Meta.Finalizers, CleanupFinalizer) }

// served reports whether o's declarations go into the registry: its
// names were accepted once (kube serves a CRD whose NamesAccepted or
// Established condition is True), and it is served under them.
func (o *object) served() bool {
	return (isTrue(o.Status.Conditions, NamesAccepted) || isTrue(o.Status.Conditions, Established)) &&
		o.Status.AcceptedNames.Plural != "" && o.Status.AcceptedNames.Kind != ""
}

// source names a CRD object's declarations (schemas.ParseCRD).
func source(name string) string { return serving.SourcePrefix + name }

// declarations parses what the CRD data declares, under names when not
// nil. Only what declares the resource is parsed (apiVersion, kind, name,
// annotations, spec), so that a status or metadata write leaves the
// digest, and the served resource, as they are.
func declarations(data []byte, names *Names) (*schemas.Declarations, error) {
	doc := []byte(`{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}`)
	name := gjson.GetBytes(data, "metadata.name").Str
	var err error
	set := func(path, raw string) {
		if err == nil && raw != "" {
			doc, err = sjson.SetRawBytes(doc, path, []byte(raw))
		}
	}
	set("metadata.name", gjson.GetBytes(data, "metadata.name").Raw)
	set("metadata.annotations", gjson.GetBytes(data, "metadata.annotations").Raw)
	set("spec", gjson.GetBytes(data, "spec").Raw)
	if names != nil {
		n, merr := json.Marshal(names)
		if merr != nil {
			return nil, merr
		}
		set("spec.names", string(n))
	}
	if err != nil {
		return nil, fmt.Errorf("crd: %s: %w", name, err)
	}
	return schemas.ParseCRDObject(source(name), doc), nil
}
