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

// Build is what a release stamped into the binary (hack/release sets
// cmd/specd's variables with -ldflags -X). An empty field is read from
// what the go command recorded: `go install ...@v0.2.0` records the
// module's version, a build in a clone the commit.
type Build struct {
	Version, Commit, TreeState, Date string
}

// DevVersion is specd's version when nothing stamped one.
const DevVersion = "v0.1.0-dev"

// KubeVersion is the /version document of a specd built as b.
// kubectl parses gitVersion as a semantic version and warns when its
// major or minor is more than one apart from its own, so gitVersion is
// the Kubernetes release whose API machinery specd is built with
// (k8s.io/apimachinery v0.X.Y is Kubernetes v1.X.Y), with specd's own
// version as build metadata, which the skew check ignores:
// "v1.37.2+specd.v0.1.0-dev". Without module information (a binary built
// outside module mode) it is specd's version alone.
func KubeVersion(b Build) version.Info {
	bi, _ := debug.ReadBuildInfo()
	return kubeVersionOf(bi, b)
}

func kubeVersionOf(bi *debug.BuildInfo, b Build) version.Info {
	b = b.filled(bi)
	info := version.Info{GitVersion: b.Version, GitCommit: b.Commit, GitTreeState: b.TreeState, BuildDate: b.Date}
	if bi == nil {
		return info
	}
	v, ok := kubeRelease(bi.Deps)
	if !ok {
		return info
	}
	info.Major, info.Minor = "1", v.Minor
	info.GitVersion = v.GitVersion + "+specd." + buildMetadata(b.Version)
	return info
}

// Resolved is b with what it lacks from this binary's build info.
func (b Build) Resolved() Build {
	bi, _ := debug.ReadBuildInfo()
	return b.filled(bi)
}

// filled is b with what it lacks from bi: the module's version when b's
// is the development one and the go command knows a real one, and the
// commit when nothing stamped one.
func (b Build) filled(bi *debug.BuildInfo) Build {
	if bi == nil {
		return b
	}
	if v := bi.Main.Version; (b.Version == DevVersion || b.Version == "") && v != "" && v != "(devel)" {
		b.Version = v
	}
	if b.Commit == "" {
		b.Commit, b.TreeState, b.Date = vcsState(bi.Settings)
	}
	return b
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

// vcsState is the commit the binary was built from, whether the tree
// had changes, and the commit's time, as the go command records them.
func vcsState(settings []debug.BuildSetting) (commit, treeState, date string) {
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.modified":
			treeState = map[string]string{"true": "dirty", "false": "clean"}[s.Value]
		case "vcs.time":
			date = s.Value
		}
	}
	return commit, treeState, date
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
