package delegated

import (
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
)

func parse(t *testing.T, args ...string) (*Flags, error) {
	t.Helper()
	var f Flags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("client-ca-file", "", "specd's own")
	f.Register(fs)
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	return &f, f.Check()
}

// The delegating options' own flags reach the options, under their names.
func TestFlagsReachTheOptions(t *testing.T) {
	f, err := parse(t, "--aggregated", "--kubeconfig=k", "--authentication-kubeconfig=a", "--authorization-kubeconfig=z",
		"--requestheader-allowed-names=front-proxy-client,other", "--authentication-skip-lookup",
		"--authentication-token-webhook-cache-ttl=1m", "--authorization-webhook-cache-authorized-ttl=2m",
		"--authorization-webhook-cache-unauthorized-ttl=3s", "--authorization-always-allow-paths=/healthz,/metrics")
	if err != nil {
		t.Fatal(err)
	}
	a, z := f.Authentication, f.Authorization
	switch {
	case !f.Aggregated || f.Kubeconfig != "k":
		t.Errorf("aggregated %v kubeconfig %q", f.Aggregated, f.Kubeconfig)
	case a.RemoteKubeConfigFile != "a" || z.RemoteKubeConfigFile != "z":
		t.Errorf("kubeconfigs %q %q", a.RemoteKubeConfigFile, z.RemoteKubeConfigFile)
	case !slices.Equal(a.RequestHeader.AllowedNames, []string{"front-proxy-client", "other"}):
		t.Errorf("allowed names %v", a.RequestHeader.AllowedNames)
	case !a.SkipInClusterLookup || a.CacheTTL != time.Minute:
		t.Errorf("skip lookup %v, cache TTL %v", a.SkipInClusterLookup, a.CacheTTL)
	case z.AllowCacheTTL != 2*time.Minute || z.DenyCacheTTL != 3*time.Second:
		t.Errorf("authorization cache TTLs %v %v", z.AllowCacheTTL, z.DenyCacheTTL)
	case !slices.Equal(z.AlwaysAllowPaths, []string{"/healthz", "/metrics"}):
		t.Errorf("always allowed paths %v", z.AlwaysAllowPaths)
	}
}

// The defaults are the delegating options': kube's header names,
// health paths open, 10 s caches.
func TestFlagDefaults(t *testing.T) {
	f, err := parse(t, "--aggregated")
	if err != nil {
		t.Fatal(err)
	}
	a, z := f.Authentication, f.Authorization
	if !slices.Equal(a.RequestHeader.UsernameHeaders, []string{"x-remote-user"}) || a.CacheTTL != 10*time.Second ||
		!slices.Equal(z.AlwaysAllowPaths, []string{"/healthz", "/readyz", "/livez"}) || z.AllowCacheTTL != 10*time.Second {
		t.Errorf("defaults: %+v %+v", a.RequestHeader, z)
	}
}

func TestFlagsNeedAggregated(t *testing.T) {
	_, err := parse(t, "--authentication-kubeconfig=a", "--authorization-always-allow-paths=/x", "--kubeconfig=k")
	want := "--authentication-kubeconfig needs --aggregated\n--authorization-always-allow-paths needs --aggregated\n--kubeconfig needs --aggregated"
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if _, err := parse(t); err != nil {
		t.Fatalf("no flags: %v", err)
	}
}

// specd's --client-ca-file stays specd's: the options' flag of that name
// is not registered.
func TestOwnFlagsStay(t *testing.T) {
	f, err := parse(t, "--aggregated", "--client-ca-file=x")
	if err != nil {
		t.Fatal(err)
	}
	if f.Authentication.ClientCert.ClientCA != "" {
		t.Fatalf("the options took --client-ca-file: %q", f.Authentication.ClientCert.ClientCA)
	}
	_, err = parse(t, "--aggregated", "--requestheader-uid-headers= ")
	if err == nil || !strings.Contains(err.Error(), "requestheader-uid-headers") {
		t.Fatalf("the options' validation: %v", err)
	}
}
