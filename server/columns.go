package server

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/duration"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/client-go/util/jsonpath"

	"github.com/specd-io/specd/schemas"
)

var objectMetaDoc = metav1.ObjectMeta{}.SwaggerDoc()

// nameColumn is the first column of every Table, as kube-apiserver has it.
var nameColumn = metav1.TableColumnDefinition{
	Name: "Name", Type: "string", Format: "name", Description: objectMetaDoc["name"],
}

// ageColumn is what a resource without printer columns shows after Name,
// as kube-apiserver does for a CustomResourceDefinition without
// additionalPrinterColumns.
var ageColumn = schemas.PrinterColumn{
	Name: "Age", Type: "date", JSONPath: ".metadata.creationTimestamp",
	Description: objectMetaDoc["creationTimestamp"],
}

// column is one printer column, compiled for evaluation. A simple JSONPath
// (.a.b[0]['c.d']) becomes a gjson path on the bytes; anything else is
// evaluated with the Kubernetes jsonpath package on the decoded object.
type column struct {
	def  metav1.TableColumnDefinition
	path string             // gjson path, when simple
	jp   *jsonpath.JSONPath // otherwise; nil when it does not parse
	// count are the gjson paths whose entries the column counts (a
	// built-in kind's PrinterColumn.Count), instead of a value.
	count []string
}

// columnsFor compiles rv's printer columns (Age when it declares none).
// JSONPath values are not safe for concurrent use: compile per request.
func columnsFor(rv *schemas.ResourceVersion) []column {
	pcs := rv.PrinterColumns
	if len(pcs) == 0 {
		pcs = []schemas.PrinterColumn{ageColumn}
	}
	cols := make([]column, 0, len(pcs))
	for _, pc := range pcs {
		desc := pc.Description
		if desc == "" {
			desc = "Custom resource definition column (in JSONPath format): " + pc.JSONPath
		}
		c := column{def: metav1.TableColumnDefinition{
			Name: pc.Name, Type: pc.Type, Format: pc.Format, Description: desc, Priority: pc.Priority,
		}}
		for _, p := range pc.Count {
			if gp, ok := gjsonPath(p); ok {
				c.count = append(c.count, gp)
			}
		}
		if p, ok := gjsonPath(pc.JSONPath); ok {
			c.path = p
		} else if len(c.count) == 0 {
			jp := jsonpath.New(pc.Name).AllowMissingKeys(true)
			if err := jp.Parse("{" + pc.JSONPath + "}"); err == nil {
				c.jp = jp
			}
		}
		cols = append(cols, c)
	}
	return cols
}

// gjsonPath translates a simple JSONPath (fields and indexes only) to a
// gjson path.
func gjsonPath(jp string) (string, bool) {
	var parts []string
	for s := jp; s != ""; {
		switch {
		case s[0] == '.':
			end := strings.IndexAny(s[1:], ".[")
			if end < 0 {
				end = len(s) - 1
			}
			name := s[1 : end+1]
			if name == "" || strings.ContainsAny(name, `*\'"{}()@$?,: `) {
				return "", false
			}
			parts = append(parts, gjson.Escape(name))
			s = s[end+1:]
		case strings.HasPrefix(s, "['") || strings.HasPrefix(s, `["`):
			end := strings.IndexByte(s[2:], s[1])
			if end < 0 || !strings.HasPrefix(s[2+end+1:], "]") {
				return "", false
			}
			parts = append(parts, gjson.Escape(s[2:2+end]))
			s = s[2+end+2:]
		case s[0] == '[':
			end := strings.IndexByte(s, ']')
			if end < 0 {
				return "", false
			}
			if _, err := strconv.ParseUint(s[1:end], 10, 32); err != nil {
				return "", false
			}
			parts = append(parts, s[1:end])
			s = s[end+1:]
		default:
			return "", false
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "."), true
}

// countCell is the number of entries of the maps and lists at paths in
// obj, as kube's printers count a ConfigMap's data and binaryData.
func countCell(obj string, paths []string) int64 {
	var n int64
	for _, r := range gjson.GetMany(obj, paths...) {
		r.ForEach(func(_, _ gjson.Result) bool { n++; return true })
	}
	return n
}

// cellContext is what evaluating a cell needs besides the object.
type cellContext struct {
	now time.Time
}

// decodedObject is an object decoded once per row, for jsonpath columns.
type decodedObject struct {
	value any
	err   error
}

// cell evaluates the column on obj, as kube-apiserver's CRD table
// convertor does: nil when absent or of the wrong type.
func (c *column) cell(obj string, decoded **decodedObject, ctx cellContext) any {
	if len(c.count) > 0 {
		return countCell(obj, c.count)
	}
	if c.path != "" {
		return cellFromResult(c.def.Type, gjson.Get(obj, c.path), ctx)
	}
	if c.jp == nil {
		return nil
	}
	if *decoded == nil {
		d := &decodedObject{}
		// Numbers as int64 or float64, as in the unstructured objects kube
		// evaluates printer columns on.
		d.err = utiljson.Unmarshal([]byte(obj), &d.value)
		*decoded = d
	}
	if (*decoded).err != nil {
		return nil
	}
	return c.jsonpathCell((*decoded).value, ctx)
}

func (c *column) jsonpathCell(obj any, ctx cellContext) any {
	results, err := c.jp.FindResults(obj)
	if err != nil || len(results) == 0 || len(results[0]) == 0 {
		return nil
	}
	value := results[0][0].Interface()
	if c.def.Type == "string" {
		var buf bytes.Buffer
		if err := c.jp.PrintResults(&buf, []reflect.Value{reflect.ValueOf(value)}); err != nil {
			return nil
		}
		return buf.String()
	}
	// Re-encode the one value and read it as gjson does, so both paths
	// share the typing rules below.
	raw, err := json.Marshal(value)
	if err != nil {
		return nil
	}
	return cellFromResult(c.def.Type, gjson.ParseBytes(raw), ctx)
}

// cellFromResult types a value for its column type.
func cellFromResult(typ string, v gjson.Result, ctx cellContext) any {
	if !v.Exists() || v.Type == gjson.Null {
		return nil
	}
	switch typ {
	case "string":
		return stringCell(v)
	case "integer":
		if v.Type == gjson.Number {
			if i, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
				return i
			}
			return int64(v.Num)
		}
	case "number":
		if v.Type == gjson.Number {
			return v.Num
		}
	case "boolean":
		if v.Type == gjson.True || v.Type == gjson.False {
			return v.Bool()
		}
	case "date":
		if v.Type == gjson.String {
			return dateCell(v.Str, ctx.now)
		}
	}
	return nil
}

// stringCell prints a value as kube's jsonpath prints it.
func stringCell(v gjson.Result) any {
	switch v.Type {
	case gjson.String:
		return v.Str
	case gjson.Number:
		if i, err := strconv.ParseInt(v.Raw, 10, 64); err == nil {
			return strconv.FormatInt(i, 10)
		}
		return strconv.FormatFloat(v.Num, 'g', -1, 64)
	case gjson.True, gjson.False:
		return strconv.FormatBool(v.Bool())
	case gjson.JSON:
		var buf bytes.Buffer
		if err := json.Compact(&buf, []byte(v.Raw)); err != nil {
			return nil
		}
		return buf.String()
	}
	return nil
}

// dateCell renders a timestamp as an age ("5m"), as kube does.
func dateCell(s string, now time.Time) any {
	var t metav1.Time
	if err := t.UnmarshalQueryParameter(s); err != nil {
		return "<invalid>"
	}
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(now.Sub(t.Time))
}
