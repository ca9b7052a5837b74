package main

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/printer"
	"go/token"
	"os"
	"slices"
	"strings"
)

var readFile = os.ReadFile

func printCmdLines() error {
	module, pkgs, err := listPackages()
	if err != nil {
		return err
	}
	for _, p := range pkgs {
		if p.rel(module) == "cmd/specd" {
			n, err := countLines(p.Dir, p.GoFiles)
			if err != nil {
				return err
			}
			fmt.Printf("cmd/specd: %d lines in %d non-test files\n", n, len(p.GoFiles))
		}
	}
	return nil
}

// methodCounts returns the methods declared on each named type of p's
// non-test files.
func methodCounts(fset *token.FileSet, p pkg) (map[string]int, map[string]bool, error) {
	files, err := parseFiles(fset, p.Dir, p.GoFiles)
	if err != nil {
		return nil, nil, err
	}
	counts, names := map[string]int{}, map[string]bool{}
	for _, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Recv == nil {
				continue
			}
			counts[receiverName(fd.Recv.List[0].Type)]++
			if fd.Name.IsExported() {
				names[fd.Name.Name] = true
			}
		}
	}
	return counts, names, nil
}

func receiverName(e ast.Expr) string {
	switch t := e.(type) {
	case *ast.StarExpr:
		return receiverName(t.X)
	case *ast.IndexExpr:
		return receiverName(t.X)
	case *ast.IndexListExpr:
		return receiverName(t.X)
	case *ast.Ident:
		return t.Name
	}
	return "?"
}

// printMethods prints the types of the engine packages with ten methods
// or more, and engine.Store whatever its count.
func printMethods() error {
	module, pkgs, err := listPackages()
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	fmt.Println("types of engine/... with 10 or more methods (non-test files):")
	for _, p := range pkgs {
		rel := p.rel(module)
		if rel != "engine" && !strings.HasPrefix(rel, "engine/") {
			continue
		}
		counts, _, err := methodCounts(fset, p)
		if err != nil {
			return err
		}
		for _, t := range slices.Sorted(mapKeys(counts)) {
			if counts[t] >= 10 || (rel == "engine" && t == "Store") {
				fmt.Printf("  %s.%s: %d\n", rel, t, counts[t])
			}
		}
	}
	return nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// printRedeclared prints the interfaces outside the engine root package
// that declare a method of the same name as an exported method of an
// engine root type and whose signature names an engine type: slices of
// the engine's surface declared again by a consumer.
func printRedeclared() error {
	module, pkgs, err := listPackages()
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var engineMethods map[string]bool
	for _, p := range pkgs {
		if p.rel(module) == "engine" {
			if _, engineMethods, err = methodCounts(fset, p); err != nil {
				return err
			}
		}
	}
	var found []string
	for _, p := range pkgs {
		if p.rel(module) == "engine" {
			continue
		}
		files, err := parseFiles(fset, p.Dir, p.GoFiles)
		if err != nil {
			return err
		}
		for _, f := range files {
			found = append(found, redeclaring(fset, f, p.rel(module), engineMethods)...)
		}
	}
	fmt.Printf("interfaces outside engine that re-declare engine methods: %d\n", len(found))
	for _, s := range found {
		fmt.Println("  " + s)
	}
	return nil
}

func redeclaring(fset *token.FileSet, f *ast.File, rel string, engineMethods map[string]bool) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		it, ok := ts.Type.(*ast.InterfaceType)
		if !ok {
			return false
		}
		var names []string
		for _, m := range it.Methods.List {
			if len(m.Names) == 0 || !engineMethods[m.Names[0].Name] {
				continue
			}
			var sig strings.Builder
			_ = printer.Fprint(&sig, fset, m.Type)
			if strings.Contains(sig.String(), "engine.") || strings.Contains(sig.String(), "schemas.ResourceVersion") {
				names = append(names, m.Names[0].Name)
			}
		}
		if len(names) > 0 {
			out = append(out, fmt.Sprintf("%s.%s (%s)", rel, ts.Name.Name, strings.Join(names, ", ")))
		}
		return false
	})
	return out
}

// printLongParams prints the functions of non-test, non-generated files
// that take more than five parameters.
func printLongParams() error {
	module, pkgs, err := listPackages()
	if err != nil {
		return err
	}
	fset := token.NewFileSet()
	var long []string
	for _, p := range pkgs {
		var names []string
		for _, n := range p.GoFiles {
			if !strings.HasSuffix(n, ".pb.go") {
				names = append(names, n)
			}
		}
		files, err := parseFiles(fset, p.Dir, names)
		if err != nil {
			return err
		}
		for _, f := range files {
			long = append(long, longFuncs(fset, f, module)...)
		}
	}
	fmt.Printf("functions with more than five parameters: %d\n", len(long))
	for _, s := range long {
		fmt.Println("  " + s)
	}
	return nil
}

func longFuncs(fset *token.FileSet, f *ast.File, module string) []string {
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		var ft *ast.FuncType
		var name string
		switch fn := n.(type) {
		case *ast.FuncDecl:
			ft, name = fn.Type, fn.Name.Name
		case *ast.FuncLit:
			ft, name = fn.Type, "func literal"
		default:
			return true
		}
		if c := paramCount(ft); c > 5 {
			pos := fset.Position(n.Pos())
			out = append(out, fmt.Sprintf("%s:%d %s (%d)", relPath(pos.Filename), pos.Line, name, c))
		}
		return true
	})
	return out
}

func paramCount(ft *ast.FuncType) int {
	n := 0
	for _, f := range ft.Params.List {
		n += max(1, len(f.Names))
	}
	return n
}

func relPath(path string) string {
	wd, err := os.Getwd()
	if err != nil {
		return path
	}
	return strings.TrimPrefix(path, wd+string(os.PathSeparator))
}

// printTestPackages prints the five test packages with the most lines.
func printTestPackages() error {
	module, pkgs, err := listPackages()
	if err != nil {
		return err
	}
	type sized struct {
		rel   string
		lines int
	}
	var all []sized
	for _, p := range pkgs {
		n, err := countLines(p.Dir, p.testFiles())
		if err != nil {
			return err
		}
		all = append(all, sized{p.rel(module), n})
	}
	slices.SortFunc(all, func(a, b sized) int { return cmp.Compare(b.lines, a.lines) })
	fmt.Println("largest test packages (lines of _test.go files):")
	for _, s := range all[:min(5, len(all))] {
		fmt.Printf("  %s: %d\n", s.rel, s.lines)
	}
	return nil
}
