package harness

import (
	"strings"
	"testing"
)

// Table is kubectl's column output: a header and rows, cells keyed by
// column name. kubectl pads with spaces and left-aligns every column, so a
// cell starts where its header does.
type Table struct {
	Columns []string
	Rows    []map[string]string
}

// ParseTable parses kubectl's column output out, failing the test when
// it has no table.
func ParseTable(t testing.TB, out string) Table {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) == 0 || lines[0] == "" {
		t.Fatalf("no table in output:\n%s", out)
	}
	header := lines[0]
	var tb Table
	var starts []int
	for i := 0; i < len(header); {
		if header[i] == ' ' {
			i++
			continue
		}
		j := i
		for j < len(header) && header[j] != ' ' {
			j++
		}
		tb.Columns = append(tb.Columns, header[i:j])
		starts = append(starts, i)
		i = j
	}
	for _, line := range lines[1:] {
		row := map[string]string{}
		for c, name := range tb.Columns {
			from, to := starts[c], len(line)
			if c+1 < len(starts) {
				to = min(starts[c+1], len(line))
			}
			if from < len(line) {
				row[name] = strings.TrimSpace(line[from:to])
			}
		}
		tb.Rows = append(tb.Rows, row)
	}
	return tb
}

// Row returns the first row whose column col is value, or nil.
func (tb Table) Row(col, value string) map[string]string {
	for _, r := range tb.Rows {
		if r[col] == value {
			return r
		}
	}
	return nil
}

// Column returns every row's cell of col.
func (tb Table) Column(col string) []string {
	var cells []string
	for _, r := range tb.Rows {
		cells = append(cells, r[col])
	}
	return cells
}
