package api

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	utilversion "k8s.io/apimachinery/pkg/util/version"
	"k8s.io/apimachinery/pkg/version"

	"github.com/specd-io/specd/test/e2e/harness"
)

// TestKubectlVersion: `kubectl version` against specd exits 0 with no
// version skew warning, even with --warnings-as-errors, and shows the
// Kubernetes API level specd speaks with specd's own version beside it.
func TestKubectlVersion(t *testing.T) {
	s := harness.StartSpecd(t, harness.SpecdOptions{})
	k := harness.NewKubectl(t, s)
	r := k.Run(t, "version", "--warnings-as-errors")
	if r.Code != 0 || strings.Contains(r.Stderr, "Warning") || !strings.Contains(r.Stdout, "Server Version: v1.") {
		t.Fatalf("want exit 0, a v1 server version and no warning:\n%s", r)
	}
	var got struct {
		Client *version.Info `json:"clientVersion"`
		Server *version.Info `json:"serverVersion"`
	}
	if err := json.Unmarshal([]byte(k.OK(t, "version", "-o", "json")), &got); err != nil || got.Client == nil || got.Server == nil {
		t.Fatalf("kubectl version -o json: %v %+v", err, got)
	}
	server, err := utilversion.ParseSemantic(got.Server.GitVersion)
	if err != nil {
		t.Fatalf("server gitVersion: %v", err)
	}
	if got.Server.Major != "1" || got.Server.Minor != strconv.FormatUint(uint64(server.Minor()), 10) {
		t.Errorf("server major %q, minor %q: want those of gitVersion %q", got.Server.Major, got.Server.Minor, got.Server.GitVersion)
	}
	if _, err := utilversion.ParseSemantic(got.Client.GitVersion); err != nil {
		t.Errorf("the pinned kubectl's version is not stamped (make kubectl stamps it): %v", err)
	}
	if server.Major() != 1 || !strings.HasPrefix(server.BuildMetadata(), "specd.") {
		t.Errorf("server gitVersion %q: want Kubernetes 1.x with specd's version as build metadata (+specd.VERSION)", got.Server.GitVersion)
	}
}
