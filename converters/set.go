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
// versions, hub and spoke through each resource's storage version. A
// resource stored with another (schemas.Resource.StoredWith) converts
// through that one's storage version, and so to and from its versions too.
// A Set is immutable and safe for concurrent use.
type Set struct {
	// byKind: group -> kind -> the resource's converters.
	byKind map[string]map[string]*resourceRules
	// byHub: the spokes of every resource stored in a hub, by the hub's
	// apiVersion and kind, for the hub's round trips.
	byHub map[[2]string][]*Rules
	// groups are the rules of each group, by name; declared: they are
	// of DeclaredRules (NewSetFrom), so a later Set may reuse them.
	groups   map[string]*groupRules
	declared bool
}

type resourceRules struct {
	res    *schemas.Resource // compiled for
	hub    string            // apiVersion
	spokes map[string]*Rules // by version
}

var _ Converter = (*Set)(nil)

// NewSet compiles the rules of every non-storage version in reg. The error
// is a *schemas.LoadError listing every problem, each with the file and the
// JSON pointer of the rule.
func NewSet(reg *schemas.Registry, rulesOf RulesOf) (*Set, error) {
	return newSet(reg, rulesOf, nil)
}

func newSet(reg *schemas.Registry, rulesOf RulesOf, prev *Set) (*Set, error) {
	s := &Set{byKind: map[string]map[string]*resourceRules{}, byHub: map[[2]string][]*Rules{},
		groups: make(map[string]*groupRules, len(reg.Groups())), declared: prev != nil}
	var probs []schemas.Problem
	for _, g := range reg.Groups() {
		gr := prev.reusable(g)
		if gr == nil {
			var p []schemas.Problem
			gr, p = compileGroup(g, rulesOf, prev.kindsOf(g.Name))
			probs = append(probs, p...)
		}
		s.add(gr)
	}
	if len(probs) > 0 {
		return nil, &schemas.LoadError{Problems: probs}
	}
	return s, nil
}

// compileGroup compiles the rules of g's resources, but for those prev
// (the rules of an earlier group of the name, nil for none) compiled for
// the same *schemas.Resource (resourceRules.reusable).
func compileGroup(g *schemas.Group, rulesOf RulesOf, prev map[string]*resourceRules) (*groupRules, []schemas.Problem) {
	gr := &groupRules{group: g, kinds: make(map[string]*resourceRules, len(g.Resources))}
	var probs []schemas.Problem
	for _, res := range g.Resources {
		if rr := prev[res.Kind]; rr.reusable(res) {
			gr.kinds[res.Kind] = rr
			gr.addHubs(rr, res)
			continue
		}
		rr, p := gr.compileResource(res, rulesOf)
		gr.kinds[res.Kind] = rr
		probs = append(probs, p...)
	}
	return gr, probs
}

// add serves gr's rules.
func (s *Set) add(gr *groupRules) {
	s.groups[gr.group.Name] = gr
	s.byKind[gr.group.Name] = gr.kinds
	for _, h := range gr.hubs {
		s.byHub[h.key] = append(s.byHub[h.key], h.rules)
	}
}

// compileResource compiles the rules of res's spokes to its hub.
func (gr *groupRules) compileResource(res *schemas.Resource, rulesOf RulesOf) (*resourceRules, []schemas.Problem) {
	hub := res.StorageResource().Version(res.StorageVersion)
	rr := &resourceRules{res: res, hub: res.StorageAPIVersion(), spokes: map[string]*Rules{}}
	var probs []schemas.Problem
	for _, rv := range res.Versions {
		var rules []any
		var ptr string
		if rulesOf != nil {
			rules, ptr = rulesOf(rv)
		}
		file := rv.File
		if rv.ConversionFile != "" {
			file = rv.ConversionFile
		}
		if rv == hub && rules != nil {
			probs = append(probs, schemas.Problem{File: file, Pointer: ptr,
				Message: "the storage version needs no conversion rules: the other versions map to it"})
		}
		if rv == hub || hub == nil {
			continue
		}
		r, p := Compile(rv, hub, rules, file, ptr)
		probs = append(probs, p...)
		rr.spokes[rv.Version] = r
		if r != nil {
			gr.hubs = append(gr.hubs, hubSpoke{key: [2]string{rr.hub, res.Kind}, rules: r})
		}
	}
	return rr, probs
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
// storage version. obj is returned as is when it is already in that
// version. The two versions may be of different groups when one resource
// is stored with the other's, or both with a third.
func (s *Set) Convert(obj []byte, toAPIVersion string) ([]byte, error) {
	fields := gjson.GetManyBytes(obj, "apiVersion", "kind")
	from, kind := fields[0].Str, fields[1].Str
	if from == toAPIVersion {
		return obj, nil
	}
	group, fromV := splitAPIVersion(from)
	toGroup, toV := splitAPIVersion(toAPIVersion)
	src, dst := s.byKind[group][kind], s.byKind[toGroup][kind]
	if src == nil || dst == nil || src.hub != dst.hub {
		return nil, fmt.Errorf("%w: %s %s to %s", ErrUnknownKind, from, kind, toAPIVersion)
	}
	var err error
	if from != src.hub {
		r := src.spokes[fromV]
		if r == nil {
			return nil, fmt.Errorf("%w: %s %s", ErrUnknownKind, from, kind)
		}
		if obj, err = r.ToHub(obj, src.hub); err != nil {
			return nil, err
		}
	}
	if toAPIVersion == dst.hub {
		return None{}.Convert(obj, toAPIVersion)
	}
	r := dst.spokes[toV]
	if r == nil {
		return nil, fmt.Errorf("%w: %s %s", ErrUnknownKind, toAPIVersion, kind)
	}
	return r.FromHub(obj, toAPIVersion)
}

// Converts reports whether RoundTrip converts objects of rv: whether its
// resource has another version. A version without declared rules still
// converts (its fields may not be in the storage version's schema).
func (s *Set) Converts(rv *schemas.ResourceVersion) bool {
	res := rv.Resource
	return s.Rules(res.Group, res.Kind, rv.Version) != nil || len(s.byHub[[2]string{res.StorageAPIVersion(), res.Kind}]) > 0
}

// RoundTrip round-trips obj, an object of rv, through the set's rules
// (check.RoundTrip, what specd check and specd serve's start fuzz): an
// object of a spoke version goes to the storage version and back; an
// object of a storage version goes to every spoke version and back, those
// of the resources stored with it included. It returns the path of the
// first difference, "" when there is none.
func (s *Set) RoundTrip(rv *schemas.ResourceVersion, obj []byte) (string, error) {
	res := rv.Resource
	if r := s.Rules(res.Group, res.Kind, rv.Version); r != nil {
		return r.RoundTrip(obj)
	}
	for _, r := range s.byHub[[2]string{res.StorageAPIVersion(), res.Kind}] {
		if path, err := r.RoundTrip(obj); path != "" || err != nil {
			return path, err
		}
	}
	return "", nil
}
