package server

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"

	"github.com/specd-io/specd/schemas"
)

// includeObject is the includeObject query parameter of a Table request.
type includeObject = metav1.IncludeObjectPolicy

const (
	includeNone  = metav1.IncludeNone
	includeWhole = metav1.IncludeObject
)

// parseIncludeObject validates includeObject as kube-apiserver does.
func parseIncludeObject(v string) (includeObject, error) {
	opts := metav1.TableOptions{IncludeObject: metav1.IncludeObjectPolicy(v)}
	if errs := metav1validation.ValidateTableOptions(&opts); len(errs) > 0 {
		return "", badRequest("Unable to convert to Table as requested: %v", errs[0].Error())
	}
	return opts.IncludeObject, nil
}

// writeTable answers a Table request for one object or a list (isList).
func (s *Server) writeTable(w http.ResponseWriter, r *http.Request, enc encoding, rv *schemas.ResourceVersion, body []byte, isList bool) {
	include, err := parseIncludeObject(r.URL.Query().Get("includeObject"))
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	tb := newTableBuilder(rv, include, s.cfg.Now())
	var t *table
	if isList {
		t = tb.list(body)
	} else {
		t = tb.object(body)
	}
	out, err := t.encode()
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	// A Table has no protobuf form here: it is answered in JSON (or
	// YAML), as before the protobuf answers came.
	enc.protobuf = false
	s.writeObject(w, r, http.StatusOK, enc, out)
}

// table is a meta.k8s.io/v1 Table whose row objects are raw JSON from the
// engine, encoded without re-encoding them.
type table struct {
	head tableHead
	rows []tableRow
}

// tableHead is metav1.Table without its rows, in the same field order.
type tableHead struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ListMeta   `json:"metadata,omitempty"`
	ColumnDefinitions []metav1.TableColumnDefinition `json:"columnDefinitions"`
}

type tableRow struct {
	cells  []any
	object []byte // JSON; nil encodes as null
}

// encode writes the Table as metav1.Table encodes, row objects as they are.
func (t *table) encode() ([]byte, error) {
	head, err := json.Marshal(&t.head)
	if err != nil {
		return nil, err
	}
	buf := make([]byte, 0, len(head)+len(t.rows)*512)
	buf = append(buf, head[:len(head)-1]...)
	buf = append(buf, `,"rows":[`...)
	for i, row := range t.rows {
		if i > 0 {
			buf = append(buf, ',')
		}
		cells, err := json.Marshal(row.cells)
		if err != nil {
			return nil, err
		}
		buf = append(buf, `{"cells":`...)
		buf = append(buf, cells...)
		buf = append(buf, `,"object":`...)
		if row.object == nil {
			buf = append(buf, "null"...)
		} else {
			buf = append(buf, row.object...)
		}
		buf = append(buf, '}')
	}
	return append(buf, "]}"...), nil
}

// tableBuilder renders objects of one resource version as Table rows.
type tableBuilder struct {
	columns []column
	defs    []metav1.TableColumnDefinition
	include includeObject
	cells   cellContext
}

func newTableBuilder(rv *schemas.ResourceVersion, include includeObject, now time.Time) *tableBuilder {
	cols := columnsFor(rv)
	defs := make([]metav1.TableColumnDefinition, 0, len(cols)+1)
	defs = append(defs, nameColumn)
	for _, c := range cols {
		defs = append(defs, c.def)
	}
	return &tableBuilder{columns: cols, defs: defs, include: include, cells: cellContext{now: now}}
}

func (tb *tableBuilder) newTable() *table {
	return &table{head: tableHead{
		TypeMeta:          metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/v1"},
		ColumnDefinitions: tb.defs,
	}}
}

// object renders a Table of one object.
func (tb *tableBuilder) object(obj []byte) *table {
	t := tb.newTable()
	t.head.ResourceVersion = gjson.GetBytes(obj, "metadata.resourceVersion").Str
	t.rows = []tableRow{tb.row(string(obj))}
	return t
}

// event renders the Table of one watch event: without column
// definitions after the first.
func (tb *tableBuilder) event(obj []byte, first bool) *table {
	t := tb.object(obj)
	if !first {
		t.head.ColumnDefinitions = nil
	}
	return t
}

// list renders a Table of a <Kind>List, one row per item.
func (tb *tableBuilder) list(list []byte) *table {
	t := tb.newTable()
	meta := gjson.GetBytes(list, "metadata")
	t.head.ResourceVersion = meta.Get("resourceVersion").Str
	t.head.Continue = meta.Get("continue").Str
	if n := meta.Get("remainingItemCount"); n.Exists() {
		v := n.Int()
		t.head.RemainingItemCount = &v
	}
	items := gjson.GetBytes(list, "items")
	t.rows = make([]tableRow, 0, 16)
	items.ForEach(func(_, item gjson.Result) bool {
		t.rows = append(t.rows, tb.row(item.Raw))
		return true
	})
	return t
}

func (tb *tableBuilder) row(obj string) tableRow {
	cells := make([]any, 0, len(tb.columns)+1)
	cells = append(cells, gjson.Get(obj, "metadata.name").Str)
	var decoded *decodedObject
	for i := range tb.columns {
		cells = append(cells, tb.columns[i].cell(obj, &decoded, tb.cells))
	}
	return tableRow{cells: cells, object: tb.rowObject(obj)}
}

// rowObject is the object of a row: its metadata as a
// PartialObjectMetadata (the default), the whole object, or nothing.
func (tb *tableBuilder) rowObject(obj string) []byte {
	switch tb.include {
	case includeNone:
		return nil
	case includeWhole:
		return []byte(obj)
	}
	meta := gjson.Get(obj, "metadata").Raw
	if meta == "" {
		meta = "{}"
	}
	const head = `{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":`
	raw := make([]byte, 0, len(head)+len(meta)+1)
	raw = append(raw, head...)
	raw = append(raw, meta...)
	return append(raw, '}')
}
