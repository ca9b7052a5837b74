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
		specd string
		want  version.Info
	}{
		"release": {bi: built(&debug.Module{Path: "k8s.io/api", Version: "v0.36.0"}, machinery("v0.37.2")), specd: "v0.1.0-dev",
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.1.0-dev"}},
		"replaced": {bi: built(&debug.Module{Path: apiMachinery, Version: "v0.37.2", Replace: machinery("v0.38.0")}), specd: "v0.2.0",
			want: version.Info{Major: "1", Minor: "38", GitVersion: "v1.38.0+specd.v0.2.0"}},
		"metadata made valid": {bi: built(machinery("v0.37.2")), specd: "v0.2.0+dirty/x..y",
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.2.0-dirty-x.y"}},
		"no specd version": {bi: built(machinery("v0.37.2")), specd: "",
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.unknown"}},
		"vcs": {bi: &debug.BuildInfo{Deps: []*debug.Module{machinery("v0.37.2")},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc"}, {Key: "vcs.modified", Value: "true"}}}, specd: "v0.1.0",
			want: version.Info{Major: "1", Minor: "37", GitVersion: "v1.37.2+specd.v0.1.0", GitCommit: "abc", GitTreeState: "dirty"}},
		"pseudo-version machinery": {bi: built(machinery("v0.0.0-20260101000000-abcdef012345")), specd: "v0.1.0",
			want: version.Info{Major: "1", Minor: "0", GitVersion: "v1.0.0+specd.v0.1.0"}},
		"no machinery":  {bi: built(), specd: "v0.1.0", want: version.Info{GitVersion: "v0.1.0"}},
		"no build info": {specd: "v0.1.0", want: version.Info{GitVersion: "v0.1.0"}},
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
