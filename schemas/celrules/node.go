package celrules

import (
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apischema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/common"
	"k8s.io/apiserver/pkg/cel/environment"
)

// node is the compiled rules of one schema node and of the nodes below
// it that have rules, the tree kube's schema/cel Validator builds, with
// programs compiled by the same function (cel.Compile) in the same
// environment (stored expressions, kube's per-call limit). Nodes without
// rules below them are left out.
type node struct {
	schema     *apischema.Structural
	self       *cachedSchema // the schema self and oldSelf are read through
	list       common.Schema // a list's schema, which pairs old and new items of a map list
	rules      []compiledRule
	oldSelf    bool // a rule refers to oldSelf
	properties map[string]*node
	items      *node
	additional *node
}

// compiledRule is one x-kubernetes-validations entry and its programs.
type compiledRule struct {
	cel.CompilationResult
	spec apiextensionsv1.ValidationRule
}

// nodeBuilder compiles the rules of a schema tree.
type nodeBuilder struct {
	envSet *environment.EnvSet
}

// buildRoot compiles the rules of a whole object's schema; nil when there
// is none.
func buildRoot(s *apischema.Structural) (*node, error) {
	b := nodeBuilder{envSet: environment.MustBaseEnvSet(environment.DefaultCompatibilityVersion())}
	return b.build(s, true, model.SchemaDeclType(s, true))
}

// build compiles the rules of s, typed in CEL as declType, and of its
// children. resourceRoot is true for the object and for embedded
// resources, whose self also has apiVersion, kind and metadata.
func (b nodeBuilder) build(s *apischema.Structural, resourceRoot bool, declType *apiservercel.DeclType) (*node, error) {
	n := &node{schema: s}
	if err := b.compileRules(n, s, declType); err != nil {
		return nil, err
	}
	if len(n.rules) > 0 {
		n.self = selfSchema(s, resourceRoot)
	}
	if err := b.buildChildren(n, s, declType); err != nil {
		return nil, err
	}
	if len(n.rules) == 0 && n.items == nil && n.additional == nil && len(n.properties) == 0 {
		return nil, nil
	}
	return n, nil
}

// selfSchema is the schema a node's rules see their value through.
func selfSchema(s *apischema.Structural, resourceRoot bool) *cachedSchema {
	if resourceRoot {
		return newCachedSchema(model.WithTypeAndObjectMeta(s))
	}
	return newCachedSchema(s)
}

// compileRules compiles the rules on s itself. Every rule was checked
// when the schema loaded (checker), so an error here is a defect.
func (b nodeBuilder) compileRules(n *node, s *apischema.Structural, declType *apiservercel.DeclType) error {
	results, err := cel.Compile(s, declType, celconfig.PerCallLimit, b.envSet, cel.StoredExpressionsEnvLoader())
	if err != nil {
		return fmt.Errorf("compiling rules: %w", err)
	}
	for i, r := range results {
		if r.Error != nil {
			return fmt.Errorf("compiling rule %q: %w", s.XValidations[i].Rule, r.Error)
		}
		n.rules = append(n.rules, compiledRule{CompilationResult: r, spec: s.XValidations[i]})
		n.oldSelf = n.oldSelf || r.UsesOldSelf
	}
	return nil
}

// buildChildren compiles the nodes below s that have rules. A property
// CEL cannot type (a field of unknown type) is left out of validation, as
// kube leaves it out.
func (b nodeBuilder) buildChildren(n *node, s *apischema.Structural, declType *apiservercel.DeclType) error {
	var elemType *apiservercel.DeclType
	if declType != nil {
		elemType = declType.ElemType
	}
	var err error
	if s.Items != nil {
		if n.items, err = b.build(s.Items, s.Items.XEmbeddedResource, elemType); err != nil {
			return err
		}
		n.list = &model.Structural{Structural: s}
	}
	if ap := s.AdditionalProperties; ap != nil && ap.Structural != nil {
		if n.additional, err = b.build(ap.Structural, ap.Structural.XEmbeddedResource, elemType); err != nil {
			return err
		}
	}
	for name, prop := range s.Properties {
		child, err := b.buildProperty(&prop, name, declType)
		if err != nil {
			return err
		}
		if child != nil {
			if n.properties == nil {
				n.properties = map[string]*node{}
			}
			n.properties[name] = child
		}
	}
	return nil
}

// buildProperty compiles the property name of an object typed declType.
func (b nodeBuilder) buildProperty(prop *apischema.Structural, name string, declType *apiservercel.DeclType) (*node, error) {
	var fieldType *apiservercel.DeclType
	if escaped, ok := apiservercel.Escape(name); ok {
		if declType == nil {
			return nil, nil
		}
		f, ok := declType.Fields[escaped]
		if !ok {
			return nil, nil
		}
		fieldType = f.Type
	} else if fieldType = model.SchemaDeclType(prop, prop.XEmbeddedResource); fieldType == nil {
		return nil, nil
	}
	return b.build(prop, prop.XEmbeddedResource, fieldType)
}
