package converters

import (
	"fmt"

	"github.com/tidwall/gjson"
)

// ToHub converts obj, an object of the spoke version, to the hub version.
func (r *Rules) ToHub(obj []byte, hubAPIVersion string) ([]byte, error) {
	return r.convert(obj, true, hubAPIVersion)
}

// FromHub converts obj, an object of the hub version, to the spoke version.
func (r *Rules) FromHub(obj []byte, spokeAPIVersion string) ([]byte, error) {
	return r.convert(obj, false, spokeAPIVersion)
}

// convert runs the steps in order to the hub, in reverse order from it.
// The target version's own data kept aside in the source object comes back;
// what the target cannot hold is kept aside for the source version.
func (r *Rules) convert(obj []byte, toHub bool, apiVersion string) ([]byte, error) {
	src, dst, srcShape, dstShape := r.spoke, r.hub, r.spokeShape, r.hubShape
	if !toHub {
		src, dst, srcShape, dstShape = r.hub, r.spoke, r.hubShape, r.spokeShape
	}
	obj, bk, err := takeBookkeeping(obj)
	if err != nil {
		return nil, err
	}
	if r.same && bk == nil {
		return None{}.Convert(obj, apiVersion)
	}
	in, err := bk.take(dst)
	if err != nil {
		return nil, err
	}
	b := &books{in: in, out: &entry{}}
	// What the target version kept of list elements is found in the
	// object as it comes, by the elements' identity (identity.go).
	cut, err := b.locateIn(obj, srcShape)
	if err != nil {
		return nil, err
	}
	if !r.same {
		// Fields the source version does not declare either are kept
		// first, so that no rule mistakes them for its own.
		if obj, err = keepAside(obj, srcShape, r.skip, &b.out.Fields); err != nil {
			return nil, err
		}
		identifyFields(obj, srcShape, b.out.Fields)
	}
	// The fields the source version had no place for go back where they
	// were cut, before the rules move them with their parents.
	if obj, err = restore(obj, cut); err != nil {
		return nil, err
	}
	if obj, err = r.runSteps(obj, toHub, b); err != nil {
		return nil, err
	}
	if !r.same {
		if obj, err = keepAside(obj, dstShape, r.skip, &b.out.Cut); err != nil {
			return nil, err
		}
	}
	// After keepAside: what comes back is never kept aside again, even
	// when neither version declares it.
	fields, err := located(obj, dstShape, in.Fields)
	if err != nil {
		return nil, err
	}
	if obj, err = restore(obj, fields); err != nil {
		return nil, err
	}
	// The elements of what was kept are named as the target version's
	// client sees them.
	identifyFields(obj, dstShape, b.out.Cut)
	b.identifyElems(obj, dstShape)
	delete(bk, src) // an object never carries its own version's entry
	if !b.out.empty() {
		if bk == nil {
			bk = bookkeeping{}
		}
		raw, err := marshalEntry(b.out)
		if err != nil {
			return nil, err
		}
		bk[src] = raw
	}
	if obj, err = putBookkeeping(obj, bk); err != nil {
		return nil, err
	}
	return None{}.Convert(obj, apiVersion)
}

// runSteps runs the steps in order to the hub, in reverse order from it.
// When every rule is under one top-level field that obj has as an object,
// they work on that field alone and it is put back once.
func (r *Rules) runSteps(obj []byte, toHub bool, b *books) ([]byte, error) {
	target, rel := obj, false
	if r.top != "" {
		if sub := gjson.GetBytes(obj, r.topLoc.get); sub.IsObject() {
			target, rel = []byte(sub.Raw), true
		}
	}
	var err error
	for i := range r.batches {
		batch := r.batches[i]
		if !toHub {
			batch = r.batchesBack[len(r.batches)-1-i]
		}
		if len(batch) > 1 {
			target, err = runEach(target, batch, toHub, rel, b)
		} else {
			target, err = batch[0].run(target, toHub, rel, b)
		}
		if err != nil {
			return nil, err
		}
	}
	if rel {
		return setAt(obj, r.topLoc, string(target))
	}
	return target, nil
}

// RoundTrip converts obj both ways, spoke -> hub -> spoke when obj is in
// the spoke version and hub -> spoke -> hub otherwise, and returns the path
// of the first place where the result differs from obj ("" when it is the
// same, metadata.annotations being absent and empty alike).
func (r *Rules) RoundTrip(obj []byte) (string, error) {
	av := gjson.GetBytes(obj, "apiVersion").Str
	toHub := av != r.hubAV
	there, back := r.hubAV, av
	if !toHub {
		there = r.spokeAV
	}
	mid, err := r.convert(obj, toHub, there)
	if err != nil {
		return "", err
	}
	got, err := r.convert(mid, !toHub, back)
	if err != nil {
		return "", err
	}
	if d := firstDiff(normal(obj), normal(got), nil); d != nil {
		return d.String(), fmt.Errorf("converters: %s %s does not round trip through %s: %s differs", r.spoke, r.hub, there, d)
	}
	return "", nil
}

// normal parses obj for comparison: empty annotations count as absent, as
// ObjectMeta's omitempty makes them.
func normal(obj []byte) gjson.Result {
	if a := gjson.GetBytes(obj, "metadata.annotations"); a.IsObject() && isEmptyObject(a) {
		obj, _ = deletePath(append([]byte(nil), obj...), path{"metadata", "annotations"})
	}
	return gjson.ParseBytes(obj)
}

func splitAPIVersion(av string) (group, version string) {
	for i := len(av) - 1; i >= 0; i-- {
		if av[i] == '/' {
			return av[:i], av[i+1:]
		}
	}
	return "", av
}

func apiVersion(group, version string) string {
	if group == "" {
		return version
	}
	return group + "/" + version
}
