package encryption

import (
	"bytes"
	"errors"
	"fmt"
	"os"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/apis/apiserver"
	apiserverv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	"k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/storage/value"
)

// Config is a loaded EncryptionConfiguration: the transformer of every
// resource it covers. It is immutable.
type Config struct {
	// Path is the file it was read from.
	Path string
	// exact holds "plural.group" (and "plural" of the core group).
	exact map[schema.GroupResource]value.Transformer
	// groups holds "*.group", and "*." under "".
	groups map[string]value.Transformer
	// all is "*.*", nil when absent.
	all value.Transformer
}

// For returns the transformer of resource (a plural) in group, or nil
// when the configuration does not cover it. As in kube-apiserver, an exact
// rule wins over "*.group", which wins over "*.*".
func (c *Config) For(group, resource string) value.Transformer {
	if t := c.exact[schema.GroupResource{Group: group, Resource: resource}]; t != nil {
		return t
	}
	if t := c.groups[group]; t != nil {
		return t
	}
	return c.all
}

// Load reads the EncryptionConfiguration file at path
// (apiserver.config.k8s.io/v1, as kube-apiserver's
// --encryption-provider-config), validated with kube's own rules. KMS
// providers are refused. Every error names the file.
func Load(path string) (*Config, error) {
	c, err := load(path)
	if err != nil {
		return nil, fmt.Errorf("encryption provider config %s: %w", path, err)
	}
	c.Path = path
	return c, nil
}

func load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, errors.New("the file is empty")
	}
	cfg, err := decode(data)
	if err != nil {
		return nil, err
	}
	if err := refuseKMS(cfg); err != nil {
		return nil, err
	}
	if errs := validation.ValidateEncryptionConfiguration(cfg, false); len(errs) > 0 {
		return nil, errs.ToAggregate()
	}
	return build(cfg)
}

// decode reads data as kube-apiserver does: strictly (an unknown field is
// an error), from apiserver.config.k8s.io/v1, defaulted.
func decode(data []byte) (*apiserver.EncryptionConfiguration, error) {
	scheme := runtime.NewScheme()
	if err := apiserver.AddToScheme(scheme); err != nil {
		return nil, err
	}
	if err := apiserverv1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	obj, gvk, err := serializer.NewCodecFactory(scheme, serializer.EnableStrict).UniversalDecoder().Decode(data, nil, nil)
	if err != nil {
		return nil, err
	}
	cfg, ok := obj.(*apiserver.EncryptionConfiguration)
	if !ok {
		return nil, fmt.Errorf("got %v, want an EncryptionConfiguration of apiserver.config.k8s.io/v1", gvk)
	}
	return cfg, nil
}

// refuseKMS refuses kms providers: they need a KMS plugin specd does not
// talk to.
func refuseKMS(cfg *apiserver.EncryptionConfiguration) error {
	var errs field.ErrorList
	for i, rc := range cfg.Resources {
		for j, p := range rc.Providers {
			if p.KMS != nil {
				path := field.NewPath("resources").Index(i).Child("providers").Index(j).Child("kms")
				errs = append(errs, field.NotSupported(path, "kms", []string{"identity", "aescbc", "aesgcm", "secretbox"}))
			}
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("specd does not support KMS providers: %w", errs.ToAggregate())
	}
	return nil
}

var anyResource = schema.GroupResource{Group: "*", Resource: "*"}

// build makes the transformer of each rule. A resource named in several
// entries gets the providers of all of them, in order (the first entry's
// first provider writes); a rule after a wildcard that covers it would
// never apply and is refused, as kube-apiserver refuses it.
func build(cfg *apiserver.EncryptionConfiguration) (*Config, error) {
	rules := map[schema.GroupResource][]value.PrefixTransformer{}
	for i, rc := range cfg.Resources {
		providers, err := providersOf(rc.Providers)
		if err != nil {
			return nil, fmt.Errorf("resources[%d]: %w", i, err)
		}
		for _, name := range rc.Resources {
			gr := schema.ParseGroupResource(name)
			if by := maskedBy(rules, gr); by != "" {
				return nil, fmt.Errorf("resources[%d]: %q is masked by the earlier rule %q", i, name, by)
			}
			rules[gr] = append(rules[gr], providers...)
		}
	}
	c := &Config{exact: map[schema.GroupResource]value.Transformer{}, groups: map[string]value.Transformer{}}
	for gr, providers := range rules {
		t := value.NewPrefixTransformers(errNoProvider, providers...)
		switch {
		case gr == anyResource:
			c.all = t
		case gr.Resource == "*":
			c.groups[gr.Group] = t
		default:
			c.exact[gr] = t
		}
	}
	return c, nil
}

var errNoProvider = errors.New("no configured provider matches the stored value")

// maskedBy names the earlier wildcard rule that covers gr, or "".
func maskedBy(rules map[schema.GroupResource][]value.PrefixTransformer, gr schema.GroupResource) string {
	if _, ok := rules[schema.GroupResource{Group: gr.Group, Resource: "*"}]; ok {
		return "*." + gr.Group
	}
	if _, ok := rules[anyResource]; ok {
		return "*.*"
	}
	return ""
}
