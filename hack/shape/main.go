// Command shape measures the shape of specd's code, for the figures that
// issue notes and docs quote: lines of cmd/specd, the methods of the
// engine's types, interfaces outside the engine that re-declare engine
// methods, functions with more than five parameters, the largest test
// packages, and how the files of one package depend on each other
// (floors, and the uses that run back up).
//
//	go run ./hack/shape            # everything, for the module in .
//	go run ./hack/shape -files engine
//
// It reads the source with go/parser and type-checks with go/types, so
// that a use of a name declared in another file of the same package is
// found whatever the name is.
package main

import (
	"flag"
	"fmt"
	"os"
)

// why, with -files, names what each use that runs back up uses.
var why = flag.Bool("why", false, "with -files: name what each use that runs back up uses")

func main() {
	files := flag.String("files", "", "only the file graph of this module-relative package")
	flag.Parse()
	if err := run(*files); err != nil {
		fmt.Fprintln(os.Stderr, "shape:", err)
		os.Exit(1)
	}
}

func run(only string) error {
	if only != "" {
		return printFileGraph(only)
	}
	steps := []func() error{printCmdLines, printMethods, printRedeclared, printLongParams, printTestPackages,
		func() error { return printFileGraph("engine") }}
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
		fmt.Println()
	}
	return nil
}
