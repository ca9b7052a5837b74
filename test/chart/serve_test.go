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
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/specd-io/specd/engine/etcdstorage/etcdtest"
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

// The token file's other users: a scraper in the group
// system:monitoring, written as docs/deploy.md writes it, and a user
// outside it.
const (
	scraperToken = "chart-test-scraper-token"
	otherToken   = "chart-test-other-token"
	tokensCSV    = adminToken + `,chart-admin,1,"system:masters"` + "\n" +
		scraperToken + ",prometheus,prometheus,system:monitoring\n" +
		otherToken + ",other,other\n"
)

// podValues are the values of TestPodServes's renderings: a token file
// for the test's admin (extraArgs and extraVolumes), the serving
// certificate from a Secret, and the shop schemas in the chart's
// ConfigMap.
func podValues(t *testing.T, more map[string]any) map[string]any {
	v := map[string]any{
		"schemas":           map[string]any{"files": shopSchemas(t)},
		"audit":             map[string]any{"enabled": true},
		"tls":               map[string]any{"source": "secret", "secret": map[string]any{"name": "specd-serving"}},
		"extraArgs":         []any{"--token-auth-file=/etc/specd/tokens/tokens.csv"},
		"extraVolumes":      []any{map[string]any{"name": "tokens", "secret": map[string]any{"secretName": "specd-tokens"}}},
		"extraVolumeMounts": []any{map[string]any{"name": "tokens", "mountPath": "/etc/specd/tokens", "readOnly": true}},
	}
	maps.Copy(v, more)
	return v
}

// runningPod is specd started as one pod of a rendering.
type runningPod struct {
	fs     *podFS
	proc   *testproc.Proc
	url    string
	client *http.Client
}

// runPod starts specd as the pod template of a rendering would run: its
// flags as rendered, every path of them in a volume of the pod laid out
// as the kubelet lays them out (ConfigMaps as rendered, Secrets from
// secrets), and nothing written outside them.
func runPod(t *testing.T, objs objects, pod corev1.PodTemplateSpec, secrets map[string]map[string]string, ca *testpki.CA) *runningPod {
	t.Helper()
	c := container(t, pod)
	secrets = maps.Clone(secrets)
	if secrets == nil {
		secrets = map[string]map[string]string{}
	}
	secrets["specd-serving"] = servingSecret(t, ca)
	secrets["specd-tokens"] = map[string]string{"tokens.csv": tokensCSV}
	fs := newPodFS(t, objs, pod, c, secrets)
	proc := startPod(t, fs, c.Args)
	return &runningPod{fs: fs, proc: proc, url: awaitServing(t, proc), client: httpsClient(ca)}
}

// checkServes: the kubelet's probes answer without credentials, the
// shop schemas are served to the admin, and the request is audited.
func (p *runningPod) checkServes(t *testing.T) {
	t.Helper()
	for _, probe := range []string{"/livez", "/readyz"} {
		waitStatus(t, p.client, p.url+probe, "", http.StatusOK)
	}
	if code := get(t, p.client, p.url+"/apis/shop.example.com/v1", adminToken); code != http.StatusOK {
		t.Errorf("GET /apis/shop.example.com/v1 as the admin: %d, want 200", code)
	}
	checkAudited(t, p.proc, "/apis/shop.example.com/v1")
	p.checkScrape(t)
}

// checkScrape: the token of the group system:monitoring, which a
// ServiceMonitor of mode standalone or replicated carries
// (docs/deploy.md), gets /metrics; no token gets 401, and a user outside
// the group 403.
func (p *runningPod) checkScrape(t *testing.T) {
	t.Helper()
	for token, want := range map[string]int{scraperToken: http.StatusOK, "": http.StatusUnauthorized, otherToken: http.StatusForbidden} {
		if code := get(t, p.client, p.url+"/metrics", token); code != want {
			t.Errorf("GET /metrics with token %q: %d, want %d", token, code, want)
		}
	}
}

// TestPodServes: specd runs as the standalone StatefulSet's pod: it
// answers the kubelet's probes, serves the schemas of the ConfigMap,
// audits to standard output, is backed up by the CronJob's command on
// its claim, and serves a schema file that an update of the ConfigMap
// adds, as the kubelet writes it.
func TestPodServes(t *testing.T) {
	ca := testpki.NewCA(t, "chart-test-ca")
	objs := render(t, standaloneValues(t, podValues(t, map[string]any{
		"backup": map[string]any{"enabled": true, "volume": map[string]any{"emptyDir": map[string]any{}}}})))
	p := runPod(t, objs, statefulPod(t, objs), nil, ca)
	p.checkServes(t)
	checkBackupJob(t, objs, p)
	files := maps.Clone(shopSchemas(t))
	files["library-v1.yaml"] = readExample(t, "library.example.com/v1.yaml")
	files["library-v1beta1.yaml"] = readExample(t, "library.example.com/v1beta1.yaml")
	if err := configvolume.Write(p.fs.configMaps[fullname+"-schemas"], toStrings(files)); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, p.client, p.url+"/apis/library.example.com/v1", adminToken, http.StatusOK)
}

// TestPodsServeReplicated: two replicas of the replicated Deployment's
// pod on one etcd that wants TLS and client certificates (its files from
// the etcd Secret) both serve, and one of them leads.
func TestPodsServeReplicated(t *testing.T) {
	etcd := etcdtest.StartTLS(t)
	ca := testpki.NewCA(t, "chart-test-ca")
	objs := render(t, replicatedValues(podValues(t, map[string]any{
		"etcd":    map[string]any{"servers": toAny(etcd.Endpoints), "tlsSecret": "etcd-client"},
		"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": false}},
	})))
	var dep appsv1.Deployment
	objs.get(t, "Deployment", fullname, &dep)
	secrets := map[string]map[string]string{"etcd-client": {
		"ca.crt": readFile(t, etcd.CAFile), "tls.crt": readFile(t, etcd.CertFile), "tls.key": readFile(t, etcd.KeyFile)}}
	var pods []*runningPod
	for range 2 {
		p := runPod(t, objs, dep.Spec.Template, secrets, ca)
		p.checkServes(t)
		pods = append(pods, p)
	}
	// The election settles within a lease's time.
	deadline := time.Now().Add(60 * time.Second)
	for {
		leaders := pods[0].leading(t) + pods[1].leading(t)
		if leaders == 1 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("replicas leading the background work: %v after 60s, want 1", leaders)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// checkBackupJob runs the backup CronJob's container as its Job would,
// on the claim of the running pod p: the snapshot lands in the backup
// volume, named after the Job.
func checkBackupJob(t *testing.T, objs objects, p *runningPod) {
	t.Helper()
	var cj batchv1.CronJob
	objs.get(t, "CronJob", fullname+"-backup", &cj)
	c := cj.Spec.JobTemplate.Spec.Template.Spec.Containers[0]
	backup := t.TempDir()
	job := &podFS{mounts: map[string]string{"/backup": backup, "/tmp": t.TempDir(), "/var/lib/specd": p.fs.path(t, "/var/lib/specd")}}
	if mountPath(c, "backup") != "/backup" || mountPath(c, "data") != "/var/lib/specd" {
		t.Fatalf("backup mounts %+v, want /backup and the claim at /var/lib/specd", c.VolumeMounts)
	}
	var args []string
	for _, a := range c.Args {
		// The kubelet expands $(JOB_NAME) from the env the Job's label
		// fills; a CronJob names its Jobs NAME-MINUTES.
		a = strings.ReplaceAll(a, "$(JOB_NAME)", cj.Name+"-29412345")
		name, value, ok := strings.Cut(a, "=")
		if strings.HasPrefix(a, "/") {
			a = job.path(t, a)
		} else if ok && strings.HasPrefix(value, "/") {
			a = name + "=" + job.path(t, value)
		}
		args = append(args, a)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, specdTool.Path(t), args...).CombinedOutput(); err != nil {
		t.Fatalf("specd %q: %v\n%s", args, err, out)
	}
	if fi, err := os.Stat(filepath.Join(backup, cj.Name+"-29412345.db")); err != nil || fi.Size() == 0 {
		t.Errorf("the backup Job's snapshot: %v, want a file in the backup volume named after the Job", err)
	}
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
	return map[string]string{"tls.crt": string(testpki.CertPEM(cert)), "tls.key": string(testpki.KeyPEM(t, key)), "ca.crt": string(ca.PEM())}
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

// waitStatus waits until url answers code (with token as bearer when
// not ""): a pod becoming ready, or a reload making a group served.
func waitStatus(t *testing.T, client *http.Client, url, token string, code int) {
	t.Helper()
	// A reload takes well under a second after the watcher's debounce;
	// the rest is slack for a busy machine.
	deadline := time.Now().Add(60 * time.Second)
	for {
		got := get(t, client, url, token)
		if got == code {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d after 60s, want %d", url, got, code)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// leading is the pod's specd_leader{election="background"}: 1 when it
// runs the background work, 0 otherwise or before it runs for it.
func (p *runningPod) leading(t *testing.T) float64 {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.url+"/metrics", nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+adminToken)
	resp, err := p.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), `specd_leader{election="background"} `); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	return 0 // not yet a candidate
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

func readFile(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

func toAny(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
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
