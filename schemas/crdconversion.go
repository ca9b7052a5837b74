package schemas

import (
	"encoding/json"
	"fmt"
	"sort"

	"sigs.k8s.io/yaml"
)

// The kind of a file of specd conversion rules for a CRD.
const (
	conversionRulesAPIVersion = "specd.io/v1alpha1"
	conversionRulesKind       = "ConversionRules"
)

// ruleSet is the conversion rules of one CRD version, and where they are
// written.
type ruleSet struct {
	rules   []any
	file    string
	pointer string
}

// sideRules is a ConversionRules document: the rules of the versions of
// the CRD it names.
type sideRules struct {
	crd       string
	file      string
	digest    string
	at        string // the pointer of metadata.name
	byVersion map[string]ruleSet
}

// setRules gives a CRD version its specd conversion rules.
func (r *resourceDecl) setRules(rs ruleSet) {
	r.conversion = true
	r.rv.ConversionRules = rs.rules
	r.rv.ConversionPointer = rs.pointer
	if rs.file != r.file {
		r.rv.ConversionFile = rs.file
	}
	fieldAt := make(map[string]string, len(r.fieldAt)+1)
	for k, v := range r.fieldAt {
		fieldAt[k] = v
	}
	fieldAt["conversion"] = rs.pointer
	r.fieldAt = fieldAt
}

// annotationRules reads the specd.io/conversion annotation: YAML or JSON,
// version -> list of rules.
func (c *crdDecl) annotationRules(d decoder) map[string]ruleSet {
	v, present := c.annotation[ConversionAnnotation]
	if !present {
		return nil
	}
	at := ptr("/metadata/annotations", ConversionAnnotation)
	text, ok := v.(string)
	if !ok {
		d.probs.add(d.file, at, "must be a string, not %s", jsonType(v))
		return nil
	}
	var parsed any
	j, err := yaml.YAMLToJSONStrict([]byte(text))
	if err == nil {
		err = json.Unmarshal(j, &parsed)
	}
	if err != nil {
		d.probs.add(d.file, at, "must be YAML or JSON mapping each version to its list of specd conversion rules: %v", err)
		return nil
	}
	rules := readVersionRules(d, parsed, at)
	c.origin.hasRules = len(rules) > 0
	return rules
}

// readVersionRules reads {version: [rule, ...]} at pointer at of d's file.
func readVersionRules(d decoder, v any, at string) map[string]ruleSet {
	m, ok := v.(map[string]any)
	if !ok {
		d.probs.add(d.file, at, "must map each version to its list of specd conversion rules, not %s", jsonType(v))
		return nil
	}
	out := map[string]ruleSet{}
	for _, version := range sortedKeys(m) {
		list := d.list(m, version, at)
		if list == nil {
			continue
		}
		out[version] = ruleSet{rules: list, file: d.file, pointer: ptr(at, version)}
	}
	return out
}

// parseConversionRules reads a ConversionRules document:
//
//	apiVersion: specd.io/v1alpha1
//	kind: ConversionRules
//	metadata: {name: <the CRD's name>}
//	spec: {versions: {<version>: [rule, ...]}}
func parseConversionRules(d decoder, m map[string]any) *sideRules {
	d.object(m, "", "apiVersion", "kind", "metadata", "spec")
	side := &sideRules{file: d.file, digest: d.digest, at: "/metadata/name"}
	if md, ok := d.object(m["metadata"], "/metadata", "name", "annotations", "labels"); ok {
		side.crd, _ = d.str(md, "name", "/metadata")
	}
	if side.crd == "" {
		d.probs.add(d.file, "/metadata/name", "name is required: the name of the CustomResourceDefinition the rules are for")
		return nil
	}
	spec, ok := d.object(m["spec"], "/spec", "versions")
	if !ok {
		return nil
	}
	if _, present := spec["versions"]; !present {
		d.probs.add(d.file, "/spec/versions", "versions is required: each version's list of rules to the storage version")
		return nil
	}
	side.byVersion = readVersionRules(d, spec["versions"], "/spec/versions")
	return side
}

// sideSet are the ConversionRules documents of a load, by the name of
// the CRD they are for (the first of a name).
type sideSet map[string]*sideRules

// of is the side file whose rules the CRD version fd takes, nil for none:
// a CRD without rules in its annotation, named by a side file that has
// rules for fd's version.
func (s sideSet) of(fd *fileDecl) *sideRules {
	if fd.crd == nil || fd.crd.hasRules {
		return nil
	}
	side := s[fd.crd.name]
	if side == nil {
		return nil
	}
	if _, ok := side.byVersion[fd.version]; !ok {
		return nil
	}
	return side
}

// applySideRules checks the ConversionRules files against the CRD
// versions that take their rules (sideSet.of; a copy of a version for
// assembly takes them: fileDecl.clone), and that every CRD with a Webhook
// strategy has rules instead. It returns the files that declare group
// versions, and the side files. files is reordered in place.
func applySideRules(files []*fileDecl, probs *problems) ([]*fileDecl, sideSet) {
	sides := sideSet{}
	decls := files[:0:len(files)]
	var sideFiles []*fileDecl
	for _, fd := range files {
		if fd.side == nil {
			decls = append(decls, fd)
			continue
		}
		sideFiles = append(sideFiles, fd)
	}
	for _, fd := range sideFiles {
		if first := sides[fd.side.crd]; first != nil {
			probs.add(fd.file, fd.side.at, "conversion rules for CRD %s are already given in %s", fd.side.crd, first.file)
			continue
		}
		sides[fd.side.crd] = fd.side
	}
	used := map[*sideRules]map[string]bool{}
	webhooks := map[*crdOrigin]int{}
	for _, fd := range decls {
		if fd.crd == nil {
			continue
		}
		if fd.crd.webhook != "" {
			webhooks[fd.crd]++
		}
		if side := sides[fd.crd.name]; side != nil {
			useSide(fd, side, used, probs)
		}
	}
	reportUnusedSides(sides, used, probs)
	checkWebhooks(webhooks, sides, probs)
	return decls, sides
}

// useSide notes which versions of side fd uses, and reports side for a
// CRD that has rules in its annotation.
func useSide(fd *fileDecl, side *sideRules, used map[*sideRules]map[string]bool, probs *problems) {
	if used[side] == nil {
		used[side] = map[string]bool{}
	}
	if fd.crd.hasRules {
		probs.add(side.file, side.at, "CRD %s has conversion rules in its %s annotation (%s) already", side.crd, ConversionAnnotation, fd.file)
		used[side][""] = true
		return
	}
	if _, ok := side.byVersion[fd.version]; !ok {
		used[side][""] = true
		return
	}
	used[side][fd.version] = true
}

// takeRules gives a copy of a CRD version's resource the rules side has
// for version.
func (r *resourceDecl) takeRules(side *sideRules, version string) {
	r.setRules(side.byVersion[version])
	// The declaration changes when the side file does.
	r.rv.FileDigest = fileDigest([]byte(r.rv.FileDigest + side.digest))
}

func reportUnusedSides(sides sideSet, used map[*sideRules]map[string]bool, probs *problems) {
	for _, name := range sortedKeys(sides) {
		side := sides[name]
		if used[side] == nil {
			probs.add(side.file, side.at, "names CRD %s, which no CRD file declares", name)
			continue
		}
		for _, v := range sortedKeys(side.byVersion) {
			if !used[side][v] && !used[side][""] {
				probs.add(side.file, side.byVersion[v].pointer, "CRD %s has no version %s", name, v)
			}
		}
	}
}

// checkWebhooks refuses a CRD with several versions whose conversion
// strategy is Webhook and for which no specd rules are given.
func checkWebhooks(webhooks map[*crdOrigin]int, sides sideSet, probs *problems) {
	var refused []*crdOrigin
	for origin, versions := range webhooks {
		if versions >= 2 && !origin.hasRules && sides[origin.name] == nil {
			refused = append(refused, origin)
		}
	}
	sort.Slice(refused, func(i, j int) bool { return refused[i].file+refused[i].name < refused[j].file+refused[j].name })
	for _, origin := range refused {
		probs.add(origin.file, origin.webhook, "%s", webhookMessage(origin.name))
	}
}

func webhookMessage(crd string) string {
	return fmt.Sprintf("conversion strategy Webhook: specd calls no conversion webhook. Declare specd conversion rules "+
		"for the versions of %s instead: in its annotation %s (version: [rules]), or in a %s %s document "+
		"with metadata.name: %s in the schema directory (see docs/crds.md); a version without rules converts field for field",
		crd, ConversionAnnotation, conversionRulesAPIVersion, conversionRulesKind, crd)
}
