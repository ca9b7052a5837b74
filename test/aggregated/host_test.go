package aggregated

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// host is a Kubernetes control plane on loopback: etcd,
// kube-apiserver with the aggregator, and kube-controller-manager with
// the namespace, garbage-collector and service-account token controllers
// only.
type host struct {
	// t is the test that started the host: processes started later
	// stop when it ends, not with the subtest that started them.
	t         testing.TB
	dir       string
	pki       *pki
	url       string // https://127.0.0.1:PORT
	apiserver *proc
	// admin is a kubeconfig of a system:masters user.
	admin  string
	client kubernetes.Interface
}

var (
	servingOn = regexp.MustCompile(`serving on (https://127\.0\.0\.1:\d+)`)
	etcdReady = regexp.MustCompile(`(?m)^ready$`)
)

// startHost starts a host until the test ends.
func startHost(t testing.TB) *host {
	t.Helper()
	// Short: the etcd socket's path has at most 107 bytes.
	dir, err := os.MkdirTemp("", "agg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	h := &host{t: t, dir: dir, pki: newPKI(t, dir)}
	socket := h.startEtcd(t)
	h.startAPIServer(t, socket)
	h.pki.client(t, "admin", "admin", "system:masters")
	h.admin = h.kubeconfig(t, "admin", "admin")
	h.client = kubernetes.NewForConfigOrDie(h.restConfig(t, h.admin))
	h.awaitReady(t)
	h.startControllerManager(t)
	return h
}

// startEtcd starts one etcd member and returns its client socket.
func (h *host) startEtcd(t testing.TB) string {
	t.Helper()
	socket := filepath.Join(h.dir, "etcd.sock")
	p := &proc{name: "etcd", dir: h.dir, args: []string{binaries.etcdmember, "-name", "m0", "-data-dir", "etcd",
		"-peer", "unix://m0.peer:1", "-client", socket, "-initial-cluster", "m0=unix://m0.peer:1"}}
	p.start(t)
	p.await(t, etcdReady, 30*time.Second)
	return socket
}

// startAPIServer starts kube-apiserver on a free loopback port with the
// aggregator's front-proxy certificates.
func (h *host) startAPIServer(t testing.TB, etcdSocket string) {
	t.Helper()
	p := h.pki
	h.apiserver = &proc{name: "kube-apiserver", dir: h.dir, args: []string{binaries.apiserver,
		// First: restartAPIServer replaces it.
		"--secure-port=0",
		"--bind-address=127.0.0.1", "--advertise-address=127.0.0.1",
		"--etcd-servers=unix://" + etcdSocket, "--endpoint-reconciler-type=none",
		"--service-cluster-ip-range=10.0.0.0/24", "--cert-dir=" + h.dir,
		"--tls-cert-file=" + p.path("apiserver.crt"), "--tls-private-key-file=" + p.path("apiserver.key"),
		"--client-ca-file=" + p.path("ca.crt"),
		"--requestheader-client-ca-file=" + p.path("front-proxy-ca.crt"), "--requestheader-allowed-names=front-proxy-client",
		"--requestheader-username-headers=X-Remote-User", "--requestheader-group-headers=X-Remote-Group",
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--proxy-client-cert-file=" + p.path("front-proxy-client.crt"), "--proxy-client-key-file=" + p.path("front-proxy-client.key"),
		"--service-account-issuer=https://kubernetes.default.svc", "--service-account-key-file=" + p.path("sa.pub"),
		"--service-account-signing-key-file=" + p.path("sa.key"),
		"--authorization-mode=RBAC", "--anonymous-auth=false", "--profiling=false", "--v=1"}}
	h.apiserver.start(t)
	h.url = h.apiserver.await(t, servingOn, 30*time.Second)[1]
}

// restartAPIServer starts kube-apiserver again, on the port it had, so
// that every client of the host finds it where it was.
func (h *host) restartAPIServer(t testing.TB, port string) {
	t.Helper()
	args := append([]string{binaries.apiserver, "--secure-port=" + port}, h.apiserver.args[2:]...)
	h.apiserver = &proc{name: "kube-apiserver-2", dir: h.dir, args: args}
	h.apiserver.start(h.t)
	h.awaitReady(t)
}

// startControllerManager runs the namespace, garbage-collector and
// service-account token controllers as a system:masters user, serving
// nothing.
func (h *host) startControllerManager(t testing.TB) {
	t.Helper()
	h.pki.client(t, "kcm", "system:kube-controller-manager", "system:masters")
	kubeconfig := h.kubeconfig(t, "kcm", "kcm")
	p := &proc{name: "kube-controller-manager", dir: h.dir, args: []string{binaries.controllerManager,
		"--kubeconfig=" + kubeconfig,
		"--controllers=namespace-controller,garbage-collector-controller,serviceaccount-token-controller",
		// The token controller fills the chart's service-account-token
		// Secrets, signing as kube-apiserver checks.
		"--service-account-private-key-file=" + h.pki.path("sa.key"), "--root-ca-file=" + h.pki.path("ca.crt"),
		"--secure-port=0", "--leader-elect=false", "--v=1"}}
	p.start(t)
}

// awaitReady waits for the host's /readyz.
func (h *host) awaitReady(t testing.TB) {
	t.Helper()
	var last string
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		body, err := h.client.Discovery().RESTClient().Get().AbsPath("/readyz").DoRaw(ctx)
		cancel()
		if err == nil {
			return
		}
		last = fmt.Sprintf("%v %s", err, body)
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("kube-apiserver not ready within 90s: %s\n%s", last, tail(h.apiserver.cur.Out().String()))
}

// kubeconfig writes NAME.kubeconfig for the client certificate CERT.crt.
func (h *host) kubeconfig(t testing.TB, name, cert string) string {
	t.Helper()
	return h.writeKubeconfig(t, name, &clientcmdapi.AuthInfo{
		ClientCertificate: h.pki.path(cert + ".crt"), ClientKey: h.pki.path(cert + ".key")})
}

// tokenKubeconfig writes NAME.kubeconfig for a bearer token.
func (h *host) tokenKubeconfig(t testing.TB, name, token string) string {
	t.Helper()
	return h.writeKubeconfig(t, name, &clientcmdapi.AuthInfo{Token: token})
}

func (h *host) writeKubeconfig(t testing.TB, name string, user *clientcmdapi.AuthInfo) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["host"] = &clientcmdapi.Cluster{Server: h.url, CertificateAuthority: h.pki.path("ca.crt")}
	cfg.AuthInfos[name] = user
	cfg.Contexts[name] = &clientcmdapi.Context{Cluster: "host", AuthInfo: name, Namespace: "default"}
	cfg.CurrentContext = name
	path := filepath.Join(h.dir, name+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// restConfig is the client configuration of kubeconfig.
func (h *host) restConfig(t testing.TB, kubeconfig string) *rest.Config {
	t.Helper()
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

// httpClient is an HTTP client of kubeconfig's user.
func (h *host) httpClient(t testing.TB, kubeconfig string) *http.Client {
	t.Helper()
	c, err := rest.HTTPClientFor(h.restConfig(t, kubeconfig))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
