// Package configdata owns what kube-apiserver does to core/v1 ConfigMaps
// and Secrets beyond their schema, so that specd serves them as kube does:
//
//   - as a write is decoded (engine.Mutator): a Secret's data and a
//     ConfigMap's binaryData must be base64 (400 "cannot be handled as a
//     Secret: illegal base64 data ..."), and are stored in canonical
//     base64; a Secret's stringData is merged into data (stringData wins)
//     and never stored; a Secret's type defaults to Opaque; empty maps are
//     dropped, as kube's encoding omits them;
//   - before it is stored (engine.WriteCheck), kube's validation as a 422
//     Invalid with kube's causes: key names (IsConfigMapKey), a key in
//     both data and binaryData, 1 MiB of data at most, the rules of each
//     Secret type, type immutable, and once immutable is true, data and
//     binaryData may not change and immutable may not be unset.
//
// A TLS Secret whose tls.crt and tls.key do not make a key pair is stored
// with a warning, as kube does. Metadata is the engine's to validate.
package configdata
