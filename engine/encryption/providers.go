package encryption

import (
	"crypto/aes"
	"encoding/base64"
	"errors"
	"fmt"

	"k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/storage/value"
	aestransformer "k8s.io/apiserver/pkg/storage/value/encrypt/aes"
	"k8s.io/apiserver/pkg/storage/value/encrypt/identity"
	"k8s.io/apiserver/pkg/storage/value/encrypt/secretbox"
)

// The prefixes kube-apiserver writes before a value of each provider;
// the key's name and a colon follow.
const (
	prefixAESCBC    = "k8s:enc:aescbc:v1:"
	prefixAESGCM    = "k8s:enc:aesgcm:v1:"
	prefixSecretbox = "k8s:enc:secretbox:v1:"
)

// providersOf returns the transformer of each provider, in order.
func providersOf(providers []apiserver.ProviderConfiguration) ([]value.PrefixTransformer, error) {
	out := make([]value.PrefixTransformer, 0, len(providers))
	for i, p := range providers {
		t, err := providerOf(p)
		if err != nil {
			return nil, fmt.Errorf("providers[%d]: %w", i, err)
		}
		out = append(out, t)
	}
	return out, nil
}

func providerOf(p apiserver.ProviderConfiguration) (value.PrefixTransformer, error) {
	switch {
	case p.AESCBC != nil:
		return keyed(prefixAESCBC, p.AESCBC.Keys, cbc)
	case p.AESGCM != nil:
		return keyed(prefixAESGCM, p.AESGCM.Keys, gcm)
	case p.Secretbox != nil:
		return keyed(prefixSecretbox, p.Secretbox.Keys, box)
	case p.Identity != nil:
		// Empty prefix: it reads what is not encrypted, and refuses what
		// is, so that the providers after it are tried.
		return value.PrefixTransformer{Transformer: identity.NewEncryptCheckTransformer(), Prefix: []byte{}}, nil
	}
	return value.PrefixTransformer{}, errors.New("no provider named: want identity, aescbc, aesgcm or secretbox")
}

// keyed is a provider with several named keys: the first writes, under
// prefix and the key's name; any of them reads.
func keyed(prefix string, keys []apiserver.Key, newKey func([]byte) (value.Transformer, error)) (value.PrefixTransformer, error) {
	if len(keys) == 0 {
		return value.PrefixTransformer{}, errors.New("no keys")
	}
	byName := make([]value.PrefixTransformer, 0, len(keys))
	for _, k := range keys {
		secret, err := base64.StdEncoding.DecodeString(k.Secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("key %q: secret is not base64: %w", k.Name, err)
		}
		t, err := newKey(secret)
		if err != nil {
			return value.PrefixTransformer{}, fmt.Errorf("key %q: %w", k.Name, err)
		}
		byName = append(byName, value.PrefixTransformer{Transformer: t, Prefix: []byte(k.Name + ":")})
	}
	noKey := fmt.Errorf("no key of the %s provider matches the stored value", prefix)
	return value.PrefixTransformer{Transformer: value.NewPrefixTransformers(noKey, byName...), Prefix: []byte(prefix)}, nil
}

func cbc(key []byte) (value.Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return aestransformer.NewCBCTransformer(block), nil
}

func gcm(key []byte) (value.Transformer, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return aestransformer.NewGCMTransformer(block)
}

func box(key []byte) (value.Transformer, error) {
	if len(key) != 32 {
		return nil, fmt.Errorf("secretbox needs a 32-byte key, got %d bytes", len(key))
	}
	return secretbox.NewSecretboxTransformer([32]byte(key)), nil
}
