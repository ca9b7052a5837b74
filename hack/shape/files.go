package main

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/importer"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// fileGraph is who uses whom among the non-test files of one package:
// uses[a][b] when file a uses a name (function, method, type, field,
// variable, constant) that file b declares.
type fileGraph struct {
	files []string
	uses  map[string]map[string]bool
	// names are, per pair of files, the names one uses of the other.
	names map[[2]string]map[string]bool
}

// printFileGraph prints the files of the module-relative package rel on
// floors, the top floor first: a file stands above every file it uses,
// except for the uses that run back up, which an order chosen to make
// them few (Eades, Lin and Smyth's greedy heuristic) cannot avoid.
func printFileGraph(rel string) error {
	g, err := loadFileGraph(rel)
	if err != nil {
		return err
	}
	order := greedyOrder(g)
	floor := floors(g, order)
	back, pairs := backUses(g, order, floor)
	top := 0
	for _, f := range floor {
		top = max(top, f)
	}
	fmt.Printf("%s: %d files on %d floors, %d uses between files, %d of them running back up\n",
		rel, len(g.files), top+1, pairs, countBack(back))
	for fl := top; fl >= 0; fl-- {
		for _, f := range order {
			if floor[f] != fl {
				continue
			}
			line := fmt.Sprintf("  floor %d: %s", fl, f)
			if len(back[f]) > 0 {
				line += "  (back up to: " + strings.Join(back[f], ", ") + ")"
			}
			fmt.Println(line)
			if *why {
				for _, to := range back[f] {
					fmt.Printf("      %s uses of %s: %s\n", f, to, strings.Join(slices.Sorted(mapKeys(g.names[[2]string{f, to}])), ", "))
				}
			}
		}
	}
	return nil
}

func countBack(back map[string][]string) int {
	n := 0
	for _, b := range back {
		n += len(b)
	}
	return n
}

func loadFileGraph(rel string) (*fileGraph, error) {
	module, pkgs, err := listPackages()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(pkgs, func(p pkg) bool { return p.rel(module) == rel })
	if i < 0 {
		return nil, fmt.Errorf("no package %s in %s", rel, module)
	}
	p := pkgs[i]
	fset := token.NewFileSet()
	files, err := parseFiles(fset, p.Dir, p.GoFiles)
	if err != nil {
		return nil, err
	}
	imp, err := exportImporter(fset, p.ImportPath)
	if err != nil {
		return nil, err
	}
	info := &types.Info{Uses: map[*ast.Ident]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: imp}
	tp, err := conf.Check(p.ImportPath, fset, files, info)
	if err != nil {
		return nil, fmt.Errorf("type-check %s: %w", rel, err)
	}
	g := &fileGraph{files: slices.Clone(p.GoFiles), uses: map[string]map[string]bool{}, names: map[[2]string]map[string]bool{}}
	for id, obj := range info.Uses {
		from := filepath.Base(fset.Position(id.Pos()).Filename)
		if obj.Pkg() != tp || !obj.Pos().IsValid() {
			continue
		}
		if v, ok := obj.(*types.Var); ok && !v.IsField() && obj.Parent() != tp.Scope() {
			continue // a local variable or parameter
		}
		if obj.Parent() != nil && obj.Parent() != tp.Scope() && obj.Parent() != types.Universe {
			if _, isVar := obj.(*types.Var); !isVar {
				continue // a name local to a function (a type or const declared in it)
			}
		}
		to := filepath.Base(fset.Position(obj.Pos()).Filename)
		if to != from {
			if g.uses[from] == nil {
				g.uses[from] = map[string]bool{}
			}
			g.uses[from][to] = true
			if g.names[[2]string{from, to}] == nil {
				g.names[[2]string{from, to}] = map[string]bool{}
			}
			g.names[[2]string{from, to}][obj.Name()] = true
		}
	}
	return g, nil
}

// exportImporter imports path's dependencies from the export data that
// go list -export builds, so that no dependency is type-checked from
// source.
func exportImporter(fset *token.FileSet, path string) (types.Importer, error) {
	out, err := exec.Command("go", "list", "-deps", "-export", "-f", "{{.ImportPath}}={{.Export}}", path).Output()
	if err != nil {
		return nil, fmt.Errorf("go list -export %s: %w", path, err)
	}
	exports := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && v != "" {
			exports[k] = v
		}
	}
	return importer.ForCompiler(fset, "gc", func(p string) (io.ReadCloser, error) {
		f, ok := exports[p]
		if !ok {
			return nil, fmt.Errorf("no export data for %s", p)
		}
		return os.Open(f)
	}), nil
}

// greedyOrder orders the files so that few uses run from a file to one
// before it: sources (used by none left) go first, sinks (using none
// left) last, and otherwise the file whose uses most outnumber its users.
func greedyOrder(g *fileGraph) []string {
	left := map[string]bool{}
	for _, f := range g.files {
		left[f] = true
	}
	degree := func(f string, out bool) int {
		n := 0
		for _, o := range g.files {
			if left[o] && o != f && ((out && g.uses[f][o]) || (!out && g.uses[o][f])) {
				n++
			}
		}
		return n
	}
	var head, tail []string
	for len(left) > 0 {
		if f := pick(g.files, left, func(f string) bool { return degree(f, true) == 0 }); f != "" {
			tail, left[f] = append([]string{f}, tail...), false
			delete(left, f)
			continue
		}
		if f := pick(g.files, left, func(f string) bool { return degree(f, false) == 0 }); f != "" {
			head = append(head, f)
			delete(left, f)
			continue
		}
		best, bestScore := "", 0
		for _, f := range g.files {
			if s := degree(f, true) - degree(f, false); left[f] && (best == "" || s > bestScore) {
				best, bestScore = f, s
			}
		}
		head = append(head, best)
		delete(left, best)
	}
	return append(head, tail...)
}

func pick(files []string, left map[string]bool, ok func(string) bool) string {
	for _, f := range files {
		if left[f] && ok(f) {
			return f
		}
	}
	return ""
}

// floors puts each file one floor above the highest file it uses down
// the order; a file that uses none down the order is on floor 0.
func floors(g *fileGraph, order []string) map[string]int {
	pos := map[string]int{}
	for i, f := range order {
		pos[f] = i
	}
	floor := map[string]int{}
	for i := len(order) - 1; i >= 0; i-- {
		f := order[i]
		for to := range g.uses[f] {
			if pos[to] > i {
				floor[f] = max(floor[f], floor[to]+1)
			}
		}
	}
	return floor
}

// backUses returns, per file, the files on its floor or above that it
// uses, and the number of using pairs in all.
func backUses(g *fileGraph, order []string, floor map[string]int) (map[string][]string, int) {
	back, pairs := map[string][]string{}, 0
	for _, f := range order {
		for _, to := range order {
			if !g.uses[f][to] {
				continue
			}
			pairs++
			if floor[to] >= floor[f] {
				back[f] = append(back[f], to)
			}
		}
	}
	return back, pairs
}
