package statusapi

import (
	"strings"
	"time"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
)

type conversionStatus struct {
	Group          string              `json:"group"`
	Resource       string              `json:"resource"`
	Kind           string              `json:"kind"`
	StorageVersion string              `json:"storageVersion"`
	VersionList    string              `json:"versionList"`
	Versions       []conversionVersion `json:"versions"`
	Lossless       lossless            `json:"lossless"`
}

type conversionVersion struct {
	Version string `json:"version"`
	Served  bool   `json:"served"`
	Storage bool   `json:"storage,omitempty"`
	File    string `json:"file,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Rules   []any  `json:"rules,omitempty"`
}

type lossless struct {
	Result   string `json:"result"`
	ProvenAt string `json:"provenAt"`
	Rounds   int    `json:"rounds"`
	Message  string `json:"message"`
}

// provenAt remembers, per resource, the declaration its conversion was
// proven for and when: serving proves a resource's round trips at each
// load that changes it, and serves nothing that fails.
type provenAt map[string]proof

type proof struct {
	res *schemas.Resource
	at  time.Time
}

// at is when res's conversion was proven: when a load first served
// res's declaration as it is now.
func (pa provenAt) at(res *schemas.Resource, now time.Time) time.Time {
	gr := res.GroupResource()
	if prev, ok := pa[gr]; ok && schemas.SameDeclaration(prev.res, res) {
		pa[gr] = proof{res: res, at: prev.at}
		return prev.at
	}
	pa[gr] = proof{res: res, at: now}
	return now
}

// conversions are the Conversion objects: one per resource served in
// more than one version, named plural.group.
func (p *publisher) conversions(reg *schemas.Registry, outcomes []serving.Outcome) map[string]any {
	now := time.Now()
	if o := latestServing(outcomes); o != nil {
		now = o.At
	}
	out := map[string]any{}
	for _, res := range reg.Resources() {
		if len(res.Versions) < 2 || res.StoredWith != nil {
			continue
		}
		out[res.Plural+"."+res.Group] = p.conversion(res, p.proven.at(res, now))
	}
	return out
}

func (p *publisher) conversion(res *schemas.Resource, at time.Time) conversionStatus {
	st := conversionStatus{Group: res.Group, Resource: res.Plural, Kind: res.Kind, StorageVersion: res.StorageVersion,
		Lossless: lossless{Result: "Proven", ProvenAt: timestamp(at), Rounds: serving.LoadRounds,
			Message: "every served version round-trips through the storage version without loss for random valid objects, checked when this declaration was loaded"}}
	var names []string
	for _, rv := range res.Versions {
		file := rv.ConversionFile
		if file == "" {
			file = rv.File
		}
		st.Versions = append(st.Versions, conversionVersion{Version: rv.Version, Served: rv.Served(), Storage: rv.Storage,
			File: p.fileName(file), Pointer: rv.ConversionPointer, Rules: rv.ConversionRules})
		names = append(names, rv.Version)
	}
	st.VersionList = strings.Join(names, ", ")
	return st
}

// latestServing is the last outcome that served schemas.
func latestServing(outcomes []serving.Outcome) *serving.Outcome {
	for i := len(outcomes) - 1; i >= 0; i-- {
		if outcomes[i].Result == "applied" {
			return &outcomes[i]
		}
	}
	return nil
}
