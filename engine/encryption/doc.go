// Package encryption owns encryption at rest: it reads kube-apiserver's
// EncryptionConfiguration file (--encryption-provider-config), decides
// which resources it covers with kube's matching rules (exact
// "plural.group", "*.group", "*." for the core group, "*.*"), and wraps a
// storage.Storage so that every value of a covered resource is encrypted
// on its way in and decrypted on its way out, whichever path reads or
// writes it: the engine's verbs, the watch cache, migration and the
// garbage collector all see plaintext; etcd holds none.
//
// The transformers are k8s.io/apiserver's (pkg/storage/value and its
// aes, secretbox and identity providers), the code kube-apiserver runs, so
// a stored value has kube's form ("k8s:enc:aescbc:v1:<key name>:...") and
// key rotation behaves as kube's: the first provider and key write, any
// configured one reads, and a value read with another is stale, so that
// the next write rewrites it. The etcd key is the authenticated data, as
// in kube. kube's own loader (pkg/server/options/encryptionconfig) is not
// used: it brings the KMS plugin clients and the k8s.io/kms module, and
// specd refuses KMS providers.
//
// Resources the configuration does not cover go through untouched, at the
// cost of one key parse and map lookup per call; their lists and watches
// are handed back as the storage gives them.
package encryption
