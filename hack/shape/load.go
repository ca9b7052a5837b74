package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
)

// pkg is one package of the module as go list describes it.
type pkg struct {
	ImportPath   string
	Dir          string
	Name         string
	GoFiles      []string
	TestGoFiles  []string
	XTestGoFiles []string
}

// rel is the package's path inside the module.
func (p pkg) rel(module string) string {
	r := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, module), "/")
	if r == "" {
		return "."
	}
	return r
}

func (p pkg) testFiles() []string {
	return append(append([]string{}, p.TestGoFiles...), p.XTestGoFiles...)
}

// listPackages lists every package of the module in the current directory.
func listPackages() (module string, pkgs []pkg, err error) {
	out, err := exec.Command("go", "list", "-m").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list -m: %w", err)
	}
	module = strings.TrimSpace(string(out))
	out, err = exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		return "", nil, fmt.Errorf("go list ./...: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(out))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			return "", nil, err
		}
		pkgs = append(pkgs, p)
	}
	return module, pkgs, nil
}

// parseFiles parses names in dir.
func parseFiles(fset *token.FileSet, dir string, names []string) ([]*ast.File, error) {
	var files []*ast.File
	for _, name := range names {
		f, err := parser.ParseFile(fset, filepath.Join(dir, name), nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	return files, nil
}

// countLines counts the lines of the files names in dir.
func countLines(dir string, names []string) (int, error) {
	n := 0
	for _, name := range names {
		b, err := readFile(filepath.Join(dir, name))
		if err != nil {
			return 0, err
		}
		n += bytes.Count(b, []byte("\n"))
	}
	return n, nil
}
