package check

import (
	"fmt"
	"strings"

	"github.com/specd-io/specd/schemas"
)

// printerColumns reports the columns of `kubectl get` that a script
// reading its output would miss: a column removed (or renamed), changed
// (another field, type, format, or hidden behind -o wide), or moved. No
// stored object or API client breaks, so these are warnings at any level.
func (r *Report) printerColumns(ov, nv *schemas.ResourceVersion) {
	// A name may be there twice: the n-th column of a name is the n-th
	// column of that name in the other version.
	next := map[string]int{}
	for i := range nv.PrinterColumns {
		next[columnKey(nv.PrinterColumns, i)] = i
	}
	var kept, moved []string
	for i, oc := range ov.PrinterColumns {
		j, ok := next[columnKey(ov.PrinterColumns, i)]
		if !ok {
			r.add(Warning, "printer-column-removed", ov.File, fmt.Sprintf("%s/%d", ov.DeclarationPointer("printerColumns"), i), ov, oc.JSONPath,
				"printer column %s is removed (or renamed): scripts that read it from kubectl get print nothing or the wrong column", oc.Name)
			continue
		}
		nc := nv.PrinterColumns[j]
		var what []string
		if nc.JSONPath != oc.JSONPath {
			what = append(what, fmt.Sprintf("shows %s instead of %s", nc.JSONPath, oc.JSONPath))
		}
		if nc.Type != oc.Type || nc.Format != oc.Format {
			what = append(what, fmt.Sprintf("has type %s instead of %s", columnType(nc), columnType(oc)))
		}
		switch {
		case oc.Priority == 0 && nc.Priority > 0:
			what = append(what, fmt.Sprintf("shows with -o wide only (priority %d)", nc.Priority))
		case oc.Priority > 0 && nc.Priority == 0:
			what = append(what, fmt.Sprintf("shows without -o wide (priority 0, was %d)", oc.Priority))
		}
		if len(what) > 0 {
			r.add(Warning, "printer-column-changed", nv.File, fmt.Sprintf("%s/%d", nv.DeclarationPointer("printerColumns"), j), nv, nc.JSONPath,
				"printer column %s %s: scripts that read kubectl get see another table", nc.Name, strings.Join(what, ", "))
		}
		kept = append(kept, columnKey(ov.PrinterColumns, i))
	}
	for i := range nv.PrinterColumns {
		if k := columnKey(nv.PrinterColumns, i); contains(kept, k) {
			moved = append(moved, k)
		}
	}
	if strings.Join(kept, "\x00") != strings.Join(moved, "\x00") {
		r.add(Warning, "printer-column-changed", nv.File, nv.DeclarationPointer("printerColumns"), nv, "",
			"the printer columns change order (%s, was %s): scripts that read kubectl get by position read other columns",
			strings.Join(moved, ", "), strings.Join(kept, ", "))
	}
}

// columnKey is the name of column i, with "#n" for its n-th repetition.
func columnKey(cols []schemas.PrinterColumn, i int) string {
	n := 0
	for _, c := range cols[:i] {
		if c.Name == cols[i].Name {
			n++
		}
	}
	if n == 0 {
		return cols[i].Name
	}
	return fmt.Sprintf("%s#%d", cols[i].Name, n+1)
}

func columnType(c schemas.PrinterColumn) string {
	if c.Format != "" {
		return c.Type + " (" + c.Format + ")"
	}
	return c.Type
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
