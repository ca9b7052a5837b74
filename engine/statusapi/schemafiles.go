package statusapi

import (
	"slices"
	"strings"
	"time"

	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/serving"
)

type schemaFileStatus struct {
	Path          string         `json:"path"`
	Source        string         `json:"source"`
	Phase         string         `json:"phase"`
	Digest        string         `json:"digest,omitempty"`
	Kinds         string         `json:"kinds,omitempty"`
	GroupVersions []groupVersion `json:"groupVersions,omitempty"`
	LastLoad      string         `json:"lastLoad,omitempty"`
	ProblemCount  int            `json:"problemCount"`
	Problems      []problem      `json:"problems,omitempty"`
}

type groupVersion struct {
	Group   string   `json:"group"`
	Version string   `json:"version"`
	Kinds   []string `json:"kinds"`
}

type problem struct {
	File    string `json:"file,omitempty"`
	Pointer string `json:"pointer,omitempty"`
	Message string `json:"message"`
	Rule    string `json:"rule,omitempty"`
}

// schemaFiles are the SchemaFile objects: one per file served, and one
// per file the last reload found problems in.
func (p *publisher) schemaFiles(reg *schemas.Registry, outcomes []serving.Outcome) map[string]any {
	files := map[string]*schemaFileStatus{}
	get := func(name string) *schemaFileStatus {
		path := p.fileName(name)
		f := files[path]
		if f == nil {
			f = &schemaFileStatus{Path: path, Source: sourceOf(path), Phase: "Loaded"}
			files[path] = f
		}
		return f
	}
	served := p.cfg.Schemas.Files()
	p.loaded.forget(served)
	loaded := lastLoad(outcomes)
	for name, digest := range served {
		f := get(name)
		f.Digest, f.LastLoad = digest, p.loaded.at(name, digest, loaded)
	}
	for _, rv := range resourceVersions(reg) {
		f := get(rv.File)
		f.GroupVersions = addKind(f.GroupVersions, rv.Resource.Group, rv.Version, rv.Resource.Kind)
	}
	if last := latest(outcomes); last != nil && (last.Result == "failed" || last.Result == "refused") {
		for _, pr := range last.Problems {
			if pr.File == "" {
				continue // not of one file: the SchemaReload shows it
			}
			f := get(pr.File)
			f.Phase = "Failed"
			f.Problems = append(f.Problems, p.problem(pr))
		}
	}
	out := make(map[string]any, len(files))
	for path, f := range files {
		f.ProblemCount, f.Kinds = len(f.Problems), kindList(f.GroupVersions)
		out[objectName(path)] = f
	}
	return out
}

// loadedAt remembers, per file, the digest served and when a load first
// served it. A reload that leaves a file as it was leaves its object as
// it was: with a thousand CRDs, each CRD written would otherwise rewrite
// a thousand SchemaFiles, and send each of their watchers as many events.
type loadedAt map[string]fileLoad

type fileLoad struct{ digest, at string }

// at is when the file name's content of digest was first loaded: now if
// it is new or changed.
func (la loadedAt) at(name, digest, now string) string {
	if l, ok := la[name]; ok && l.digest == digest {
		return l.at
	}
	la[name] = fileLoad{digest: digest, at: now}
	return now
}

// forget drops the files no longer served.
func (la loadedAt) forget(served map[string]string) {
	for name := range la {
		if _, ok := served[name]; !ok {
			delete(la, name)
		}
	}
}

func (p *publisher) problem(pr serving.Problem) problem {
	return problem{File: p.fileName(pr.File), Pointer: pr.Pointer, Message: pr.Message, Rule: pr.Rule}
}

// resourceVersions are every version of every resource of reg, served
// or not: a file declares them either way.
func resourceVersions(reg *schemas.Registry) []*schemas.ResourceVersion {
	var out []*schemas.ResourceVersion
	for _, res := range reg.Resources() {
		out = append(out, res.Versions...)
	}
	return out
}

func addKind(gvs []groupVersion, group, version, kind string) []groupVersion {
	for i := range gvs {
		if gvs[i].Group == group && gvs[i].Version == version {
			if !slices.Contains(gvs[i].Kinds, kind) {
				gvs[i].Kinds = append(gvs[i].Kinds, kind)
				slices.Sort(gvs[i].Kinds)
			}
			return gvs
		}
	}
	gvs = append(gvs, groupVersion{Group: group, Version: version, Kinds: []string{kind}})
	slices.SortFunc(gvs, func(a, b groupVersion) int {
		return strings.Compare(a.Group+"/"+a.Version, b.Group+"/"+b.Version)
	})
	return gvs
}

// kindList is the kinds of gvs, for the Kinds column: "Widget, Gadget".
func kindList(gvs []groupVersion) string {
	var kinds []string
	for _, gv := range gvs {
		for _, k := range gv.Kinds {
			if !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
	}
	return strings.Join(kinds, ", ")
}

// lastLoad is when the schemas last loaded (or were found unchanged).
func lastLoad(outcomes []serving.Outcome) string {
	for i := len(outcomes) - 1; i >= 0; i-- {
		if r := outcomes[i].Result; r == "applied" || r == "unchanged" {
			return timestamp(outcomes[i].At)
		}
	}
	return ""
}

func latest(outcomes []serving.Outcome) *serving.Outcome {
	if len(outcomes) == 0 {
		return nil
	}
	return &outcomes[len(outcomes)-1]
}

func timestamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
