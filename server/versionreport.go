package server

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"
)

// VersionReport is what `specd version -o json|yaml` prints, in the shape
// of `kubectl version -o json`: specd's own version, and the /version
// document this binary serves with the Go release and platform it was
// built for.
type VersionReport struct {
	SpecdVersion  string       `json:"specdVersion"`
	ServerVersion version.Info `json:"serverVersion"`
}

// Report is the VersionReport of this binary, built as b.
func (b Build) Report() VersionReport {
	bi, _ := debug.ReadBuildInfo()
	return reportOf(bi, b, runtime.Version(), runtime.Compiler, runtime.GOOS+"/"+runtime.GOARCH)
}

func reportOf(bi *debug.BuildInfo, b Build, goVersion, compiler, platform string) VersionReport {
	info := kubeVersionOf(bi, b)
	info.GoVersion, info.Compiler, info.Platform = goVersion, compiler, platform
	return VersionReport{SpecdVersion: b.filled(bi).Version, ServerVersion: info}
}

// Format is r as output names it: "json", "yaml", or "" for lines of
// text; any other output is an error that names it.
func (r VersionReport) Format(output string) ([]byte, error) {
	switch output {
	case "":
		return r.text(), nil
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		return append(b, '\n'), err
	case "yaml":
		return yaml.Marshal(r)
	default:
		return nil, fmt.Errorf("--output %q: want json or yaml", output)
	}
}

// text is r in lines of "name: value", what is unknown said so.
func (r VersionReport) text() []byte {
	v := r.ServerVersion
	kube, _, _ := strings.Cut(v.GitVersion, "+") // without specd's build metadata
	commit := cmp.Or(v.GitCommit, "unknown")
	if v.GitTreeState != "" {
		commit += " (" + v.GitTreeState + ")"
	}
	var b bytes.Buffer
	w := tabwriter.NewWriter(&b, 0, 0, 1, ' ', 0)
	for _, l := range [][2]string{{"specd version", r.SpecdVersion}, {"Kubernetes version", kube}, {"Git commit", commit},
		{"Build date", cmp.Or(v.BuildDate, "unknown")}, {"Go version", v.GoVersion + " " + v.Compiler + " " + v.Platform}} {
		fmt.Fprintf(w, "%s:\t%s\n", l[0], l[1])
	}
	_ = w.Flush() // a bytes.Buffer takes every write
	return b.Bytes()
}
