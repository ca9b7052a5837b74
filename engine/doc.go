// Package engine is specd's resource machinery: the write pipeline that turns
// a request body into a stored object (decode, default, convert, prepare
// metadata, validate, persist) and the read path that serves stored bytes.
//
// Objects stay JSON bytes. The engine decodes a body only to prune, default
// and validate it, and touches stored bytes with gjson/sjson on the read
// path. Storage is any implementation of the Storage interface; etcdstorage
// is the one specd ships.
//
// Errors returned by Store are *k8s.io/apimachinery/pkg/api/errors.StatusError
// values, so the server can write them as Kubernetes Status objects as they
// are.
package engine
