package converters

import (
	"errors"
	"fmt"

	"github.com/tidwall/gjson"

	"github.com/specd-io/specd/schemas"
)

// ErrUnknownKind is returned (wrapped) when Set.Convert meets an apiVersion
// and kind, or a target version, that the registry does not serve.
var ErrUnknownKind = errors.New("converters: unknown kind or version")

// RulesOf returns a version's conversion rules (decoded JSON, nil for none)
// and the JSON pointer of the list in the version's File.
type RulesOf func(rv *schemas.ResourceVersion) (rules []any, pointer string)

// DeclaredRules are the rules the schema files declare, as the loader
// read them: what specd serve and specd check compile.
func DeclaredRules(rv *schemas.ResourceVersion) ([]any, string) {
	return rv.ConversionRules, rv.ConversionPointer
}

// Set converts the objects of every resource of a registry between its
// versions, hub and spoke through each resource's storage version. A Set
// is immutable and safe for concurrent use.
type Set struct {
	// byKind: group -> kind -> the resource's converters.
	byKind map[string]map[string]*resourceRules
}

type resourceRules struct {
	hub    string
	spokes map[string]*Rules // by version
}

var _ Converter = (*Set)(nil)

// NewSet compiles the rules of every non-storage version in reg. The error
// is a *schemas.LoadError listing every problem, each with the file and the
// JSON pointer of the rule.
func NewSet(reg *schemas.Registry, rulesOf RulesOf) (*Set, error) {
	s := &Set{byKind: map[string]map[string]*resourceRules{}}
	var probs []schemas.Problem
	for _, g := range reg.Groups() {
		kinds := map[string]*resourceRules{}
		s.byKind[g.Name] = kinds
		for _, res := range g.Resources {
			hub := res.Version(res.StorageVersion)
			rr := &resourceRules{hub: res.StorageVersion, spokes: map[string]*Rules{}}
			kinds[res.Kind] = rr
			for _, rv := range res.Versions {
				var rules []any
				var ptr string
				if rulesOf != nil {
					rules, ptr = rulesOf(rv)
				}
				if rv == hub && rules != nil {
					probs = append(probs, schemas.Problem{File: rv.File, Pointer: ptr,
						Message: "the storage version needs no conversion rules: the other versions map to it"})
				}
				if rv == hub || hub == nil {
					continue
				}
				r, p := Compile(rv, hub, rules, rv.File, ptr)
				probs = append(probs, p...)
				rr.spokes[rv.Version] = r
			}
		}
	}
	if len(probs) > 0 {
		return nil, &schemas.LoadError{Problems: probs}
	}
	return s, nil
}

// Rules returns the compiled rules of a spoke version, nil for the storage
// version or an unknown one.
func (s *Set) Rules(group, kind, version string) *Rules {
	rr := s.byKind[group][kind]
	if rr == nil {
		return nil
	}
	return rr.spokes[version]
}

// Convert converts obj to toAPIVersion ("group/version"), through the
// storage version. obj is returned as is when it is already in that version.
func (s *Set) Convert(obj []byte, toAPIVersion string) ([]byte, error) {
	fields := gjson.GetManyBytes(obj, "apiVersion", "kind")
	from := fields[0].Str
	if from == toAPIVersion {
		return obj, nil
	}
	group, fromV := splitAPIVersion(from)
	toGroup, toV := splitAPIVersion(toAPIVersion)
	rr := s.byKind[group][fields[1].Str]
	if rr == nil || toGroup != group {
		return nil, fmt.Errorf("%w: %s %s to %s", ErrUnknownKind, from, fields[1].Str, toAPIVersion)
	}
	var err error
	if fromV != rr.hub {
		r := rr.spokes[fromV]
		if r == nil {
			return nil, fmt.Errorf("%w: %s %s", ErrUnknownKind, from, fields[1].Str)
		}
		if obj, err = r.ToHub(obj, apiVersion(group, rr.hub)); err != nil {
			return nil, err
		}
	}
	if toV == rr.hub {
		return None{}.Convert(obj, toAPIVersion)
	}
	r := rr.spokes[toV]
	if r == nil {
		return nil, fmt.Errorf("%w: %s %s", ErrUnknownKind, toAPIVersion, fields[1].Str)
	}
	return r.FromHub(obj, toAPIVersion)
}

// RoundTrip round-trips obj, an object of rv, through the set's rules
// (check.RoundTrip, what specd check and specd serve's start fuzz): an
// object of a spoke version goes to the storage version and back; an
// object of the storage version goes to every spoke version and back. It
// returns the path of the first difference, "" when there is none.
func (s *Set) RoundTrip(rv *schemas.ResourceVersion, obj []byte) (string, error) {
	res := rv.Resource
	if r := s.Rules(res.Group, res.Kind, rv.Version); r != nil {
		return r.RoundTrip(obj)
	}
	for _, spoke := range res.Versions {
		r := s.Rules(res.Group, res.Kind, spoke.Version)
		if r == nil {
			continue
		}
		if path, err := r.RoundTrip(obj); path != "" || err != nil {
			return path, err
		}
	}
	return "", nil
}
