package server

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

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

// Format is r as output names it: "json" or "yaml"; any other output is
// an error that names it.
func (r VersionReport) Format(output string) ([]byte, error) {
	switch output {
	case "json":
		b, err := json.MarshalIndent(r, "", "  ")
		return append(b, '\n'), err
	case "yaml":
		return yaml.Marshal(r)
	default:
		return nil, fmt.Errorf("--output %q: want json or yaml", output)
	}
}
