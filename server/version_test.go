package server

import (
	"runtime/debug"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"
)

func TestKubeVersion(t *testing.T) {
	machinery := func(v string) *debug.Module { return &debug.Module{Path: apiMachinery, Version: v} }
	built := func(deps ...*debug.Module) *debug.BuildInfo { return &debug.BuildInfo{Deps: deps} }
	for name, tc := range map[string]struct {
		bi    *debug.BuildInfo
		specd Build
		want  version.Info
	}{
		"release": {bi: built(&debug.Module{Path: "k8s.io/api", Version: "v0.36.0"}, machinery("v0.37.2")), specd: Build{Version: "v0.1.0-dev"},
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.1.0-dev"}},
		"replaced": {bi: built(&debug.Module{Path: apiMachinery, Version: "v0.37.2", Replace: machinery("v0.38.0")}), specd: Build{Version: "v0.2.0"},
			want: version.Info{Major: "1", Minor: "38", GitVersion: "v1.38.0+specd.v0.2.0"}},
		"metadata made valid": {bi: built(machinery("v0.37.2")), specd: Build{Version: "v0.2.0+dirty/x..y"},
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.2.0-dirty-x.y"}},
		"no specd version": {bi: built(machinery("v0.37.2")), specd: Build{Version: ""},
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.unknown"}},
		"vcs": {bi: &debug.BuildInfo{Deps: []*debug.Module{machinery("v0.37.2")},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}, {Key: "vcs.time", Value: "2026-01-02T03:04:05Z"}}}, specd: Build{Version: "v0.1.0"},
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.1.0", GitCommit: "abc", GitTreeState: "dirty", BuildDate: "2026-01-02T03:04:05Z"}},
		"pseudo-version machinery": {bi: built(machinery("v0.0.0-20260101000000-abcdef012345")), specd: Build{Version: "v0.1.0"},
			want: version.Info{Major: "1", Minor: "0", GitVersion: "v1.0.0+specd.v0.1.0"}},
		"no machinery":  {bi: built(), specd: Build{Version: "v0.1.0"}, want: version.Info{GitVersion: "v0.1.0"}},
		"no build info": {specd: Build{Version: "v0.1.0"}, want: version.Info{GitVersion: "v0.1.0"}},
		"stamped": {bi: &debug.BuildInfo{Deps: []*debug.Module{machinery("v0.37.2")},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}}},
			specd: Build{Version: "v0.2.0", Commit: "def", TreeState: "clean", Date: "2026-01-02T03:04:05Z"},
			want:  version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.2.0", GitCommit: "def", GitTreeState: "clean", BuildDate: "2026-01-02T03:04:05Z"}},
		"go install @version": {bi: &debug.BuildInfo{Main: debug.Module{Path: "github.com/specd-io/specd", Version: "v0.3.0"}, Deps: []*debug.Module{machinery("v0.37.2")}},
			specd: Build{Version: DevVersion},
			want:  version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.3.0"}},
		"built in a clone": {bi: &debug.BuildInfo{Main: debug.Module{Path: "github.com/specd-io/specd", Version: "(devel)"}, Deps: []*debug.Module{machinery("v0.37.2")}},
			specd: Build{Version: DevVersion},
			want:  version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd." + DevVersion}},
	} {
		t.Run(name, func(t *testing.T) {
			got := kubeVersionOf(tc.bi, tc.specd)
			if got != tc.want {
				t.Fatalf("got %+v\nwant %+v", got, tc.want)
			}
			if got.Major == "" {
				return
			}
			// kubectl's skew check parses gitVersion as a semantic version.
			v, err := utilversion.ParseSemantic(got.GitVersion)
			if err != nil || v.BuildMetadata() == "" {
				t.Errorf("gitVersion %q: %v, build metadata %q", got.GitVersion, err, v.BuildMetadata())
			}
		})
	}
}
