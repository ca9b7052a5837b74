package chart

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/specd-io/specd/internal/configvolume"
	"github.com/specd-io/specd/internal/testpki"
	"github.com/specd-io/specd/internal/testproc"
)

var (
	specdTool = &tool{env: "SPECD_BIN", build: func(ctx context.Context, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "go", "build", "-o", out, "./cmd/specd")
	}}
	pluginsTool = &tool{env: "PLUGINS_DIR", build: func(ctx context.Context, out string) *exec.Cmd {
		return exec.CommandContext(ctx, "go", "build", "-o", out+"/", "./examples/plugins/...")
	}}
)

// adminToken is the bearer token of the token file the test gives specd
// (through extraArgs and extraVolumes).
const adminToken = "chart-test-admin-token"

// TestPodServes runs specd as the chart's standalone pod would: its
// flags as rendered, every path of them in a volume of the pod laid out
// as the kubelet lays them out (the schemas and the audit policy from the
// rendered ConfigMaps, the serving certificate and a token file from
// Secrets), and nothing written outside them. specd must answer the
// kubelet's probes, serve the schemas of the ConfigMap, audit to
// standard output, and serve a schema file added by an update of the
// ConfigMap as the kubelet makes it.
func TestPodServes(t *testing.T) {
	ca := testpki.NewCA(t, "chart-test-ca")
	objs := render(t, standaloneValues(t, map[string]any{
		"backup":            map[string]any{"enabled": false},
		"tls":               map[string]any{"source": "secret", "secret": map[string]any{"name": "specd-serving"}},
		"extraArgs":         []any{"--token-auth-file=/etc/specd/tokens/tokens.csv"},
		"extraVolumes":      []any{map[string]any{"name": "tokens", "secret": map[string]any{"secretName": "specd-tokens"}}},
		"extraVolumeMounts": []any{map[string]any{"name": "tokens", "mountPath": "/etc/specd/tokens", "readOnly": true}},
	}))
	pod := statefulPod(t, objs)
	c := container(t, pod)
	fs := newPodFS(t, objs, pod, c, map[string]map[string]string{
		"specd-serving": servingSecret(t, ca),
		"specd-tokens":  {"tokens.csv": adminToken + `,chart-admin,1,"system:masters"` + "\n"},
	})
	proc := startPod(t, fs, c.Args)
	url := awaitServing(t, proc)
	client := httpsClient(ca)
	for _, probe := range []string{"/livez", "/readyz"} {
		if code := get(t, client, url+probe, ""); code != http.StatusOK {
			t.Errorf("%s without credentials, as the kubelet probes: %d, want 200", probe, code)
		}
	}
	if code := get(t, client, url+"/apis/shop.example.com/v1", adminToken); code != http.StatusOK {
		t.Errorf("GET /apis/shop.example.com/v1 as the admin: %d, want 200", code)
	}
	checkAudited(t, proc, "/apis/shop.example.com/v1")
	// An upgrade that adds a schema file to the ConfigMap: the kubelet
	// writes a new folder and swings ..data to it.
	files := maps.Clone(shopSchemas(t))
	files["library-v1.yaml"] = readExample(t, "library.example.com/v1.yaml")
	files["library-v1beta1.yaml"] = readExample(t, "library.example.com/v1beta1.yaml")
	if err := configvolume.Write(fs.configMaps[fullname+"-schemas"], toStrings(files)); err != nil {
		t.Fatal(err)
	}
	waitServed(t, client, url+"/apis/library.example.com/v1")
}

// startPod starts specd with the pod's args, its paths moved into fs,
// listening on loopback (a port the kernel picks) instead of :8443, and
// the image's plugins folder replaced by the example plugins.
func startPod(t *testing.T, fs *podFS, podArgs []string) *testproc.Proc {
	t.Helper()
	var args []string
	for _, a := range podArgs {
		name, value, ok := strings.Cut(a, "=")
		switch {
		case !ok:
		case name == "--listen":
			value = "127.0.0.1:0"
		case name == "--plugins":
			value = pluginsTool.Path(t)
		case strings.HasPrefix(value, "/"):
			value = fs.path(t, value)
		}
		if ok {
			a = name + "=" + value
		}
		args = append(args, a)
	}
	cmd := exec.Command(specdTool.Path(t), args...)
	// Go's os.TempDir, where plugins' sockets go: the pod's /tmp.
	cmd.Env = append(os.Environ(), "TMPDIR="+fs.path(t, "/tmp"))
	proc, err := testproc.Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if !proc.Stop(syscall.SIGTERM, 30*time.Second) {
			t.Error("specd did not stop within 30s of SIGTERM")
		}
		if t.Failed() {
			t.Logf("specd %q:\n%s", args, tail(proc.Out().String()))
		}
	})
	return proc
}

var servingLine = regexp.MustCompile(`msg=serving address=(https://\S+)`)

func awaitServing(t *testing.T, proc *testproc.Proc) string {
	t.Helper()
	m, err := proc.Await(servingLine, 90*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return m[1]
}

// servingSecret is a kubernetes.io/tls Secret's files: a certificate of
// ca for 127.0.0.1, where the test reaches specd.
func servingSecret(t *testing.T, ca *testpki.CA) map[string]string {
	t.Helper()
	key := testpki.NewKey(t)
	cert := testpki.Sign(t, &x509.Certificate{
		SerialNumber: serial(), Subject: pkix.Name{CommonName: "specd"},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}, ca.Cert, key, ca.Key)
	return map[string]string{"tls.crt": string(testpki.CertPEM(cert)), "tls.key": string(keyPEM(t, key)), "ca.crt": string(ca.PEM())}
}

func httpsClient(ca *testpki.CA) *http.Client {
	pool := x509.NewCertPool()
	pool.AddCert(ca.Cert)
	return &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

// get returns the status of GET url, with token as bearer when not "".
func get(t *testing.T, client *http.Client, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// waitServed waits until url answers 200 to the admin, as a reload
// makes a new group served.
func waitServed(t *testing.T, client *http.Client, url string) {
	t.Helper()
	// The watcher's debounce and the reload take well under a second;
	// the rest is slack for a busy machine.
	deadline := time.Now().Add(30 * time.Second)
	for {
		code := get(t, client, url, adminToken)
		if code == http.StatusOK {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d 30s after the ConfigMap's update, want 200 once reloaded", url, code)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// checkAudited: an audit event of uri on specd's standard output, one
// JSON object a line, as the chart's --audit-log-path=- writes them.
func checkAudited(t *testing.T, proc *testproc.Proc, uri string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		sc := bufio.NewScanner(strings.NewReader(proc.Out().String()))
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			var ev struct {
				Kind, RequestURI, Level string
			}
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Kind == "Event" && ev.RequestURI == uri && ev.Level == "Metadata" {
				return
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("no audit event of %s at level Metadata on specd's output", uri)
}

func readExample(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, "examples", "schemas", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func toStrings(m map[string]any) map[string]string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = fmt.Sprint(v)
	}
	return out
}

// tail is the end of a long log.
func tail(s string) string {
	if len(s) > 8000 {
		return "...\n" + s[len(s)-8000:]
	}
	return s
}
