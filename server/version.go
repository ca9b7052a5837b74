package server

import (
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
)

// apiMachinery is the module whose release fixes the Kubernetes API level
// specd speaks: its types and wire format (ObjectMeta, Status, watch
// events, lists) are the ones specd serves.
const apiMachinery = "k8s.io/apimachinery"

// KubeVersion is the /version document of a specd built as specdVersion.
// kubectl parses gitVersion as a semantic version and warns when its
// major or minor is more than one apart from its own, so gitVersion is
// the Kubernetes release whose API machinery specd is built with
// (k8s.io/apimachinery v0.X.Y is Kubernetes v1.X.Y), with specd's own
// version as build metadata, which the skew check ignores:
// "v1.37.2+specd.v0.1.0-dev". Without module information (a binary built
// outside module mode) it is specdVersion alone.
func KubeVersion(specdVersion string) version.Info {
	bi, _ := debug.ReadBuildInfo()
	return kubeVersionOf(bi, specdVersion)
}

func kubeVersionOf(bi *debug.BuildInfo, specdVersion string) version.Info {
	info := version.Info{GitVersion: specdVersion}
	if bi == nil {
		return info
	}
	info.GitCommit, info.GitTreeState = vcsState(bi.Settings)
	v, ok := kubeRelease(bi.Deps)
	if !ok {
		return info
	}
	info.Major, info.Minor = "1", v.Minor
	info.GitVersion = v.GitVersion + "+specd." + buildMetadata(specdVersion)
	return info
}

// kubeRelease is the Kubernetes release of the linked API machinery:
// its GitVersion and Minor.
func kubeRelease(deps []*debug.Module) (version.Info, bool) {
	for _, d := range deps {
		if d.Path != apiMachinery {
			continue
		}
		if d.Replace != nil {
			d = d.Replace
		}
		v, err := utilversion.ParseSemantic(d.Version)
		if err != nil || v.Major() != 0 {
			return version.Info{}, false
		}
		minor := strconv.FormatUint(uint64(v.Minor()), 10)
		patch := strconv.FormatUint(uint64(v.Patch()), 10)
		return version.Info{GitVersion: "v1." + minor + "." + patch, Minor: minor}, true
	}
	return version.Info{}, false
}

// vcsState is the commit the binary was built from and whether the tree
// had changes, as the go command records them.
func vcsState(settings []debug.BuildSetting) (commit, treeState string) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			treeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
		}
	}
	return commit, treeState
}

// notMetadata is what semantic versioning does not allow in build
// metadata.
var notMetadata = regexp.MustCompile(`[^0-9A-Za-z.-]+`)

// buildMetadata is v made valid as semantic-version build metadata
// (dot-separated, non-empty identifiers of [0-9A-Za-z-]), so that a
// VERSION such as "v0.2.0+dirty" still yields a gitVersion kubectl parses.
func buildMetadata(v string) string {
	var ids []string
	for _, id := range strings.Split(notMetadata.ReplaceAllString(v, "-"), ".") {
		if id != "" {
			ids = append(ids, id)
		}
	}
	if len(ids) == 0 {
		return "unknown"
	}
	return strings.Join(ids, ".")
}
