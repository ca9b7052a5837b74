package engine

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"
)

// continueToken is the decoded form of a list's continue parameter, the
// same as kube-apiserver's: the snapshot revision to read and the key to
// start from, relative to the list prefix.
type continueToken struct {
	APIVersion      string `json:"v"`
	ResourceVersion int64  `json:"rv"`
	StartKey        string `json:"start"`
}

const continueVersion = "meta.k8s.io/v1"

var errInvalidContinue = errors.New("continue key is not valid")

// encodeContinue returns the token that continues a list at rev after
// lastKey (a key under prefix, which ends with "/").
func encodeContinue(prefix, lastKey string, rev int64) (string, error) {
	if !strings.HasPrefix(lastKey, prefix) {
		return "", fmt.Errorf("engine: key %q is not under %q", lastKey, prefix)
	}
	start := "/" + lastKey[len(prefix):] + "\x00"
	b, err := json.Marshal(continueToken{APIVersion: continueVersion, ResourceVersion: rev, StartKey: start})
	if err != nil {
		return "", fmt.Errorf("engine: encode continue token: %w", err)
	}
	return base64.RawURLEncoding.EncodeToString(b), nil
}

// decodeContinue returns the key (under prefix) and revision a token
// continues from. A revision of -1 means "at the latest revision".
func decodeContinue(token, prefix string) (startKey string, rev int64, err error) {
	data, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	var c continueToken
	if err := json.Unmarshal(data, &c); err != nil {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, err)
	}
	if c.APIVersion != continueVersion {
		return "", 0, fmt.Errorf("%w: server does not recognize this encoded version %v", errInvalidContinue, c.APIVersion)
	}
	if c.ResourceVersion == 0 || c.ResourceVersion < -1 {
		return "", 0, fmt.Errorf("%w: incorrect encoded start resourceVersion (version %s)", errInvalidContinue, continueVersion)
	}
	if c.StartKey == "" {
		return "", 0, fmt.Errorf("%w: encoded start key empty (version %s)", errInvalidContinue, continueVersion)
	}
	key := c.StartKey
	if !strings.HasPrefix(key, "/") {
		key = "/" + key
	}
	// A cleaned key cannot climb above prefix.
	if cleaned := path.Clean(key); cleaned != key {
		return "", 0, fmt.Errorf("%w: %v", errInvalidContinue, c.StartKey)
	}
	return prefix + key[1:], c.ResourceVersion, nil
}
