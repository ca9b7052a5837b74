package crd

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/specd-io/specd/schemas/crdobject"
)

// object is what the package reads of a stored CRD.
type object struct {
	crdobject.CRD
	Meta struct {
		Name              string   `json:"name"`
		DeletionTimestamp *string  `json:"deletionTimestamp"`
		Finalizers        []string `json:"finalizers"`
	} `json:"metadata"`
	Status status `json:"status"`
}

type status struct {
	Conditions     []Condition     `json:"conditions,omitempty"`
	AcceptedNames  crdobject.Names `json:"acceptedNames"`
	StoredVersions []string        `json:"storedVersions,omitempty"`
}

func decode(data []byte) (*object, error) {
	var o object
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("crd: decode: %w", err)
	}
	if err := json.Unmarshal(data, &o.CRD); err != nil {
		return nil, fmt.Errorf("crd: decode: %w", err)
	}
	return &o, nil
}

func (o *object) deleting() bool { return o.Meta.DeletionTimestamp != nil }

func (o *object) hasFinalizer() bool { return slices.Contains(o.Meta.Finalizers, CleanupFinalizer) }

// served reports whether o's documents go into the registry: its names
// were accepted once (kube serves a CRD whose NamesAccepted or
// Established condition is True), under its accepted names.
func (o *object) served() bool {
	return (isTrue(o.Status.Conditions, NamesAccepted) || isTrue(o.Status.Conditions, Established)) &&
		o.Status.AcceptedNames.Plural != "" && o.Status.AcceptedNames.Kind != ""
}

// asServed is o's CRD under its accepted names.
func (o *object) asServed() *crdobject.CRD {
	c := o.CRD
	c.Spec.Names = o.Status.AcceptedNames
	return &c
}

// storageVersion is the version spec.versions stores, "" for none.
func storageVersion(c *crdobject.CRD) string {
	for _, v := range c.Spec.Versions {
		if v.Storage {
			return v.Name
		}
	}
	return ""
}
