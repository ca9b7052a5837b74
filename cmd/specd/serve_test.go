package main

import (
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/specd-io/specd/engine/etcdcare"
	"github.com/specd-io/specd/engine/etcdstorage"
	"github.com/specd-io/specd/engine/rbac"
	"github.com/specd-io/specd/server"
	"github.com/specd-io/specd/server/aggregated"
	"github.com/specd-io/specd/server/certs"
	"github.com/specd-io/specd/server/chain"
)

func TestParseServeFlags(t *testing.T) {
	tests := map[string]struct {
		args    []string
		want    serveConfig
		wantErr string
	}{
		"defaults": {
			args: []string{"--schemas", "s"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo},
		},
		"everything": {
			args: []string{"--schemas", "s", "--data-dir", "d", "--listen", "127.0.0.1:0", "--plugins", "p",
				"--etcd-servers", "http://127.0.0.1:2379, http://127.0.0.1:2380,", "--log-level", "debug"},
			want: serveConfig{Schemas: "s", DataDir: "d", Listen: "127.0.0.1:0", Plugins: "p",
				Etcd: etcdcare.Flags{Servers: []string{"http://127.0.0.1:2379", "http://127.0.0.1:2380"}}, LogLevel: slog.LevelDebug},
		},
		"disable, repeated and comma-separated": {
			args: []string{"--schemas", "s", "--disable", "a.example.com", "--disable", " b.example.com/v1, c.example.com/v2beta1,"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo,
				Disable: []string{"a.example.com", "b.example.com/v1", "c.example.com/v2beta1"}},
		},
		"no watching, breaking changes allowed": {
			args: []string{"--schemas", "s", "--watch=false", "--allow-breaking"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, AllowBreaking: true},
		},
		"CRDs changed as in kube": {
			args: []string{"--schemas", "s", "--crd-gate=false"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, CRDGate: false},
		},
		"object limit": {
			args: []string{"--schemas", "s", "--max-object-bytes", "1048576"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, MaxObjectBytes: 1 << 20},
		},
		"etcd TLS": {
			args: []string{"--schemas", "s", "--etcd-servers", "https://etcd:2379", "--etcd-cafile", "ca.crt", "--etcd-certfile", "c.crt", "--etcd-keyfile", "c.key"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo,
				Etcd: etcdcare.Flags{Servers: []string{"https://etcd:2379"}, TLS: etcdstorage.TLSFlags{CAFile: "ca.crt", CertFile: "c.crt", KeyFile: "c.key"}}},
		},
		"console off": {
			args: []string{"--schemas", "s", "--console=false"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, Console: false},
		},
		"profiling off": {
			args: []string{"--schemas", "s", "--profiling=false"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo, Profiling: false},
		},
		"etcd CA alone": {
			args: []string{"--schemas", "s", "--etcd-servers", "https://etcd:2379", "--etcd-cafile", "ca.crt"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo,
				Etcd: etcdcare.Flags{Servers: []string{"https://etcd:2379"}, TLS: etcdstorage.TLSFlags{CAFile: "ca.crt"}}},
		},
		"serving TLS files": {
			args: []string{"--schemas", "s", "--tls-cert-file", "s.crt", "--tls-private-key-file", "s.key", "--client-ca-file", "ca.crt"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo,
				TLS: certs.Flags{CertFile: "s.crt", KeyFile: "s.key", ClientCAFile: "ca.crt"}},
		},
		"insecure on loopback": {
			args: []string{"--schemas", "s", "--insecure-serving", "--listen", "[::1]:0"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "[::1]:0", LogLevel: slog.LevelInfo, TLS: certs.Flags{Insecure: true}},
		},
		"insecure on localhost": {
			args: []string{"--schemas", "s", "--insecure-serving", "--listen", "localhost:8080"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "localhost:8080", LogLevel: slog.LevelInfo, TLS: certs.Flags{Insecure: true}},
		},
		"insecure on every address": {args: []string{"--schemas", "s", "--insecure-serving", "--listen", ":8080"},
			wantErr: `--insecure-serving serves plain HTTP, so only on a loopback --listen address (127.0.0.1, ::1 or localhost), not ":8080"`},
		"insecure on a named host": {args: []string{"--schemas", "s", "--insecure-serving", "--listen", "specd.example.com:80"},
			wantErr: `only on a loopback --listen address`},
		"insecure with TLS files": {args: []string{"--schemas", "s", "--insecure-serving", "--client-ca-file", "ca.crt"},
			wantErr: "--insecure-serving serves plain HTTP: it does not go with"},
		"serving cert needs its key": {args: []string{"--schemas", "s", "--tls-cert-file", "s.crt"},
			wantErr: "--tls-cert-file and --tls-private-key-file go together"},
		"etcd TLS needs etcd servers": {args: []string{"--schemas", "s", "--etcd-cafile", "ca.crt"}, wantErr: "need --etcd-servers"},
		"etcd cert needs its key": {args: []string{"--schemas", "s", "--etcd-servers", "https://etcd:2379", "--etcd-certfile", "c.crt"},
			wantErr: "--etcd-certfile and --etcd-keyfile go together"},
		"etcd key needs its cert": {args: []string{"--schemas", "s", "--etcd-servers", "https://etcd:2379", "--etcd-keyfile", "c.key"},
			wantErr: "--etcd-certfile and --etcd-keyfile go together"},
		"etcd care": {
			args: []string{"--schemas", "s", "--etcd-compaction-interval", "0", "--etcd-check-interval", "1s", "--etcd-quota-backend-bytes", "8388608"},
			want: serveConfig{Schemas: "s", DataDir: "data", Listen: "127.0.0.1:8080", LogLevel: slog.LevelInfo,
				Etcd: etcdcare.Flags{CheckInterval: time.Second, QuotaBackendBytes: 8 << 20}},
		},
		"quota is the embedded etcd's": {args: []string{"--schemas", "s", "--etcd-servers", "http://etcd:2379", "--etcd-quota-backend-bytes", "1"},
			wantErr: "--etcd-quota-backend-bytes is the embedded etcd's"},
		"compaction interval not negative": {args: []string{"--schemas", "s", "--etcd-compaction-interval", "-1s"}, wantErr: "--etcd-compaction-interval -1s"},
		"object limit not negative":        {args: []string{"--schemas", "s", "--max-object-bytes", "-1"}, wantErr: "--max-object-bytes -1"},
		"disable needs G, G/V or G/V/R":    {args: []string{"--schemas", "s", "--disable", "a.example.com/v1/x/y"}, wantErr: `--disable "a.example.com/v1/x/y"`},
		"disable has no empty part":        {args: []string{"--schemas", "s", "--disable", "api//events"}, wantErr: `--disable "api//events"`},
		"disable without a group":          {args: []string{"--schemas", "s", "--disable", "/v1"}, wantErr: `--disable "/v1"`},
		"schemas is required":              {args: nil, wantErr: "--schemas is required"},
		"listen needs a port":              {args: []string{"--schemas", "s", "--listen", "localhost"}, wantErr: `--listen "localhost"`},
		"unknown log level":                {args: []string{"--schemas", "s", "--log-level", "loud"}, wantErr: "--log-level"},
		"stray argument":                   {args: []string{"--schemas", "s", "extra"}, wantErr: "unexpected arguments: extra"},
		"unknown flag":                     {args: []string{"--schemas", "s", "--nope"}, wantErr: "unknown flag: --nope"},
		"registering needs aggregated":     {args: []string{"--schemas", "s", "--register-apiservices"}, wantErr: "need --aggregated"},
		"delegating flag needs aggregated": {args: []string{"--schemas", "s", "--requestheader-allowed-names", "x"}, wantErr: "--requestheader-allowed-names needs --aggregated"},
		"aggregated needs TLS":             {args: []string{"--schemas", "s", "--aggregated", "--insecure-serving"}, wantErr: "--aggregated needs TLS"},
		"registering needs a Service":      {args: []string{"--schemas", "s", "--aggregated", "--register-apiservices"}, wantErr: `--apiservice-service "": want NAMESPACE/NAME`},
		"own certificate needs its CA": {args: []string{"--schemas", "s", "--aggregated", "--register-apiservices", "--apiservice-service", "n/s",
			"--tls-cert-file", "c", "--tls-private-key-file", "k"}, wantErr: "needs --apiservice-ca-file"},
		"tls-sans with own certificate": {args: []string{"--schemas", "s", "--tls-sans", "a.b.svc", "--tls-cert-file", "c", "--tls-private-key-file", "k"},
			wantErr: "--tls-sans adds names"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			got, err := parseServeFlags(tc.args)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want it to contain %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tc.want.Authorization == "" {
				tc.want.Authorization, tc.want.Chain = securityDefaults(t)
			}
			if tc.want.Etcd.CheckInterval == 0 {
				tc.want.Etcd.CompactionInterval, tc.want.Etcd.CheckInterval = 5*time.Minute, 30*time.Second
			}
			if !slices.Contains(tc.args, "--profiling=false") {
				tc.want.Profiling = true // --profiling's default, as kube-apiserver's
			}
			if !slices.Contains(tc.args, "--watch=false") {
				tc.want.Watch = true // reloads follow the files unless turned off
			}
			if !slices.Contains(tc.args, "--crd-gate=false") {
				tc.want.CRDGate = true // CRD updates are judged by the gate unless turned off
			}
			if !slices.Contains(tc.args, "--console=false") {
				tc.want.Console = true // the console is served unless turned off
			}
			if tc.want.Aggregation.Port == 0 {
				tc.want.Aggregation = aggregationDefaults(t)
			}
			if tc.want.EventTTL == 0 {
				tc.want.EventTTL = time.Hour // --event-ttl's default, as kube-apiserver's
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

// aggregationDefaults are the aggregation flags when none is given.
func aggregationDefaults(t *testing.T) aggregated.Flags {
	t.Helper()
	cfg, err := parseServeFlags([]string{"--schemas", "s"})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Aggregation
}

// securityDefaults are the authorization mode and request chain flags when
// none is given, which the cases above leave out.
func securityDefaults(t *testing.T) (rbac.Mode, chain.Flags) {
	t.Helper()
	cfg, err := parseServeFlags([]string{"--schemas", "s"})
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Authorization, cfg.Chain
}

func TestParseSecurityFlags(t *testing.T) {
	cfg, err := parseServeFlags([]string{"--schemas", "s"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Authorization != rbac.ModeRBAC || cfg.Chain.MaxRequestsInFlight != 400 || cfg.Chain.MaxMutatingRequests != 200 ||
		cfg.Chain.RequestTimeout != time.Minute || cfg.Chain.Authn.Anonymous || !cfg.Chain.PriorityAndFairness ||
		cfg.Chain.MinRequestTimeout != 30*time.Minute {
		t.Errorf("defaults: %+v %+v, want RBAC, 400, 200, 1m, no anonymous requests, priority and fairness, 1800s", cfg.Authorization, cfg.Chain)
	}
	cfg, err = parseServeFlags([]string{"--schemas", "s", "--authorization-mode", "AlwaysAllow", "--max-requests-inflight", "10",
		"--max-mutating-requests-inflight", "5", "--request-timeout", "5s", "--token-auth-file", "t.csv", "--anonymous-auth",
		"--enable-priority-and-fairness=false", "--min-request-timeout", "60"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Authorization != rbac.ModeAlwaysAllow || cfg.Chain.MaxRequestsInFlight != 10 || cfg.Chain.MaxMutatingRequests != 5 ||
		cfg.Chain.RequestTimeout != 5*time.Second || cfg.Chain.Authn.TokenAuthFile != "t.csv" || !cfg.Chain.Authn.Anonymous ||
		cfg.Chain.PriorityAndFairness || cfg.Chain.MinRequestTimeout != time.Minute {
		t.Errorf("given: %+v %+v", cfg.Authorization, cfg.Chain)
	}
	// 0 is kube-apiserver's: a watch without timeoutSeconds ends at once.
	cfg, err = parseServeFlags([]string{"--schemas", "s", "--min-request-timeout", "0"})
	if err != nil || cfg.Chain.ServerMinRequestTimeout() != server.NoMinRequestTimeout {
		t.Errorf("--min-request-timeout 0: %v, %v; want server.NoMinRequestTimeout", err, cfg.Chain.ServerMinRequestTimeout())
	}
	for args, want := range map[string]string{
		"--authorization-mode=Webhook":                                 "want RBAC or AlwaysAllow",
		"--oidc-client-id=specd":                                       "--oidc-client-id",
		"--audit-log-path=/tmp/specd-audit.log":                        "--audit-policy-file",
		"--min-request-timeout=-1":                                     "-min-request-timeout",
		"--max-requests-inflight=0 --max-mutating-requests-inflight=0": "must be positive with --enable-priority-and-fairness",
	} {
		_, err := parseServeFlags(append([]string{"--schemas", "s"}, strings.Fields(args)...))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: err = %v, want it to mention %q", args, err, want)
		}
	}
}

// TestObjectLimit: without --max-object-bytes, the embedded etcd is sized
// for the body limit, and an external etcd is assumed at its default
// --max-request-bytes.
func TestObjectLimit(t *testing.T) {
	tests := map[string]struct {
		cfg  serveConfig
		want int64
	}{
		"embedded":      {serveConfig{}, 3 << 20},
		"external":      {serveConfig{Etcd: etcdcare.Flags{Servers: []string{"http://e:2379"}}}, 1536<<10 - 16<<10},
		"flag embedded": {serveConfig{MaxObjectBytes: 5 << 20}, 5 << 20},
		"flag external": {serveConfig{MaxObjectBytes: 1 << 20, Etcd: etcdcare.Flags{Servers: []string{"http://e:2379"}}}, 1 << 20},
	}
	for name, tc := range tests {
		if got := tc.cfg.objectLimit(); got != tc.want {
			t.Errorf("%s: objectLimit() = %d, want %d", name, got, tc.want)
		}
	}
}

func TestRunCommands(t *testing.T) {
	tests := map[string]struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		"no command":      {args: nil, code: 0, stdout: "Available Commands:"},
		"unknown command": {args: []string{"frobnicate"}, code: 2, stderr: `unknown command "frobnicate"`},
		"version":         {args: []string{"version"}, code: 0, stdout: specdVersion},
		"help":            {args: []string{"help"}, code: 0, stdout: "serve       Serve the APIs of a schema directory"},
		"serve bad flags": {args: []string{"serve"}, code: 2, stderr: "--schemas is required"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(t.Context(), tc.args, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr: %s)", code, tc.code, stderr.String())
			}
			if !strings.Contains(stdout.String(), tc.stdout) {
				t.Errorf("stdout %q does not contain %q", stdout.String(), tc.stdout)
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q does not contain %q", stderr.String(), tc.stderr)
			}
		})
	}
}

func TestParseEventTTL(t *testing.T) {
	tests := map[string]struct {
		args    []string
		want    time.Duration
		wantErr string
	}{
		"kube's default": {want: time.Hour},
		"given":          {args: []string{"--event-ttl", "90s"}, want: 90 * time.Second},
		"kept":           {args: []string{"--event-ttl", "0"}, want: 0},
		"negative":       {args: []string{"--event-ttl", "-1s"}, wantErr: "--event-ttl -1s: must not be negative"},
	}
	for name, tc := range tests {
		t.Run(name, func(t *testing.T) {
			cfg, err := parseServeFlags(append([]string{"--schemas", "s"}, tc.args...))
			if tc.wantErr != "" {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := cfg.ttl()["events"]; got != tc.want {
				t.Errorf("events TTL = %v, want %v", got, tc.want)
			}
		})
	}
}
