package server

import (
	"crypto/sha512"
	"encoding/hex"
	"net/url"
	"strings"
	"sync"

	openapiv2 "github.com/google/gnostic-models/openapiv2"
	openapiv3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"

	"github.com/specd-io/specd/schemas"
)

// openapiSet holds the published OpenAPI documents of one registry
// snapshot. Each is built on first use and kept until the registry is
// swapped (snapshot.go), so a reload publishes new documents and a server
// nobody asks for OpenAPI never builds them.
type openapiSet struct {
	reg *schemas.Registry

	v3Once        sync.Once
	index         *openapiDoc            // /openapi/v3
	groupVersions map[string]*openapiDoc // /openapi/v3/apis/G/V, keyed "G/V"

	v2Once sync.Once
	v2     *openapiDoc // /openapi/v2
}

func newOpenAPISet(reg *schemas.Registry) *openapiSet {
	return &openapiSet{reg: reg}
}

// openapiDoc is one encoded document, and its protobuf form (gnostic's, as
// kube-apiserver serves it) made when first asked for.
type openapiDoc struct {
	json    []byte
	hash    string // upper-case hex SHA-512 of json, as kube-apiserver's
	toProto func([]byte) ([]byte, error)

	protoOnce sync.Once
	proto     []byte
	protoErr  error
}

func newOpenAPIDoc(body []byte, toProto func([]byte) ([]byte, error)) *openapiDoc {
	sum := sha512.Sum512(body)
	return &openapiDoc{json: body, hash: strings.ToUpper(hex.EncodeToString(sum[:])), toProto: toProto}
}

func (d *openapiDoc) protobuf() ([]byte, error) {
	d.protoOnce.Do(func() { d.proto, d.protoErr = d.toProto(d.json) })
	return d.proto, d.protoErr
}

// openapiIndex is /openapi/v3: where each group version's document is.
type openapiIndex struct {
	Paths map[string]openapiIndexEntry `json:"paths"`
}

type openapiIndexEntry struct {
	ServerRelativeURL string `json:"serverRelativeURL"`
}

// v3 returns the index and the group version documents.
func (o *openapiSet) v3() (*openapiDoc, map[string]*openapiDoc) {
	o.v3Once.Do(func() {
		o.groupVersions = make(map[string]*openapiDoc)
		index := openapiIndex{Paths: make(map[string]openapiIndexEntry)}
		for _, g := range o.reg.Groups() {
			for _, gv := range g.ServedVersions() {
				doc := newOpenAPIDoc(mustJSON(groupVersionOpenAPI(gv)), v3Protobuf)
				key := gv.Group + "/" + gv.Version
				o.groupVersions[key] = doc
				index.Paths["apis/"+key] = openapiIndexEntry{ServerRelativeURL: hashedURL(key, doc.hash)}
			}
		}
		o.index = newOpenAPIDoc(mustJSON(index), nil)
	})
	return o.index, o.groupVersions
}

// hashedURL is where the document of group version key ("G/V") with the
// given hash is, as kube-apiserver writes it in the index.
func hashedURL(key, hash string) string {
	return "/openapi/v3/apis/" + key + "?" + url.Values{"hash": {hash}}.Encode()
}

// swagger returns the Swagger 2.0 document.
func (o *openapiSet) swagger() *openapiDoc {
	o.v2Once.Do(func() {
		o.v2 = newOpenAPIDoc(mustJSON(swaggerDocument(o.reg)), v2Protobuf)
	})
	return o.v2
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
