package openapi

import (
	"crypto/sha512"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"strings"
	"sync"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"

	"github.com/specd-io/specd/schemas"
)

// Verbs are the verbs the server's routes answer, so that the documents
// publish an operation for each of them and for nothing else.
type Verbs struct {
	Resource []string // a resource's main endpoint
	Status   []string // the status subresource
	Scale    []string // the scale subresource
	// StoreSubresources, when set, returns the update-only subresources
	// the store serves for a resource (a Namespace's finalize): each gets
	// a replace operation.
	StoreSubresources func(*schemas.Resource) []string
}

// mainVerbs are the verbs of r's main endpoint: those the routes answer
// that r serves (x-specd-resource verbs).
func (v Verbs) mainVerbs(r *schemas.Resource) []string {
	out := make([]string, 0, len(v.Resource))
	for _, verb := range v.Resource {
		if r.Serves(verb) {
			out = append(out, verb)
		}
	}
	return out
}

// storeSubresources are r's update-only subresources, nil for none.
func (v Verbs) storeSubresources(r *schemas.Resource) []string {
	if v.StoreSubresources == nil {
		return nil
	}
	return v.StoreSubresources(r)
}

// Documents are the published documents of one registry snapshot. Each is
// built on first use and kept until the registry is swapped, so a reload
// publishes new documents and a server nobody asks for OpenAPI never
// builds them. Safe for concurrent use.
type Documents struct {
	reg   *schemas.Registry
	verbs Verbs

	v3Once        sync.Once
	index         *Document            // /openapi/v3
	groupVersions map[string]*Document // /openapi/v3/apis/G/V, keyed "G/V"

	v2Once sync.Once
	v2     *Document // /openapi/v2
}

// New returns the documents of reg, none of them built yet.
func New(reg *schemas.Registry, verbs Verbs) *Documents {
	return &Documents{reg: reg, verbs: verbs}
}

// Document is one encoded document, and its protobuf form (gnostic's, as
// kube-apiserver serves it) made when first asked for.
type Document struct {
	json    []byte
	hash    string // upper-case hex SHA-512 of json, as kube-apiserver's
	toProto func([]byte) ([]byte, error)

	protoOnce sync.Once
	proto     []byte
	protoErr  error
}

func newDocument(body []byte, toProto func([]byte) ([]byte, error)) *Document {
	sum := sha512.Sum512(body)
	return &Document{json: body, hash: strings.ToUpper(hex.EncodeToString(sum[:])), toProto: toProto}
}

// JSON is the document. Callers must not modify it.
func (d *Document) JSON() []byte { return d.json }

// Hash identifies the document's content: its ETag, and the hash in the
// index's URL of a group version.
func (d *Document) Hash() string { return d.hash }

// Protobuf is the document in gnostic's protobuf form.
func (d *Document) Protobuf() ([]byte, error) {
	d.protoOnce.Do(func() { d.proto, d.protoErr = d.toProto(d.json) })
	return d.proto, d.protoErr
}

// index is /openapi/v3: where each group version's document is.
type index struct {
	Paths map[string]indexEntry `json:"paths"`
}

type indexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// Index is the /openapi/v3 document, which names every group version's.
func (docs *Documents) Index() *Document {
	docs.buildV3()
	return docs.index
}

// GroupVersion is the OpenAPI 3.0 document of a served group version.
func (docs *Documents) GroupVersion(group, version string) (*Document, bool) {
	docs.buildV3()
	doc, ok := docs.groupVersions[schemas.APIVersion(group, version)]
	return doc, ok
}

// buildV3 builds every group version document at once: the index holds
// the hash of each.
func (docs *Documents) buildV3() {
	docs.v3Once.Do(func() {
		docs.groupVersions = make(map[string]*Document)
		idx := index{Paths: make(map[string]indexEntry)}
		for _, g := range docs.reg.Groups() {
			for _, gv := range g.ServedVersions() {
				doc := newDocument(mustJSON(groupVersionOpenAPI(gv, docs.verbs)), v3Protobuf)
				docs.groupVersions[schemas.APIVersion(gv.Group, gv.Version)] = doc
				idx.Paths[schemas.APIPath(gv.Group, gv.Version)[1:]] = indexEntry{ServerRelativeURL: HashedURL(gv.Group, gv.Version, doc.hash)}
			}
		}
		docs.index = newDocument(mustJSON(idx), nil)
	})
}

// HashedURL is where the document of a group version with the given hash
// is, as kube-apiserver writes it in the index (/openapi/v3/api/v1 for
// the core group).
func HashedURL(group, version, hash string) string {
	return "/openapi/v3" + schemas.APIPath(group, version) + "?" + url.Values{"hash": {hash}}.Encode()
}

// Swagger is the Swagger 2.0 document of every served group version.
func (docs *Documents) Swagger() *Document {
	docs.v2Once.Do(func() {
		docs.v2 = newDocument(mustJSON(swaggerDocument(docs.reg, docs.verbs)), v2Protobuf)
	})
	return docs.v2
}

func v3Protobuf(body []byte) ([]byte, error) {
	doc, err := openapiv3.ParseDocument(body)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}

func v2Protobuf(body []byte) ([]byte, error) {
	doc, err := openapiv2.ParseDocument(body)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(doc)
}

// mustJSON encodes documents built from plain types, which cannot fail.
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("openapi: encoding a document: " + err.Error())
	}
	return b
}
