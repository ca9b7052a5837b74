package certs

import (
	"fmt"
	"os"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// ContextName is the name of the cluster, user and context of the admin
// kubeconfig.
const ContextName = "specd"

// WriteKubeconfig writes a kubeconfig (0600) for serverURL whose cluster
// trusts the CA of f and whose user is the admin certificate of f, with
// its context current. The certificates are embedded, not referenced, so
// the file works from any directory and when copied elsewhere.
func WriteKubeconfig(path, serverURL string, f Files) error {
	caData, err := os.ReadFile(f.CACert)
	if err != nil {
		return fmt.Errorf("certs: kubeconfig: %w", err)
	}
	certData, err := os.ReadFile(f.AdminCert)
	if err != nil {
		return fmt.Errorf("certs: kubeconfig: %w", err)
	}
	keyData, err := os.ReadFile(f.AdminKey)
	if err != nil {
		return fmt.Errorf("certs: kubeconfig: %w", err)
	}
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters[ContextName] = &clientcmdapi.Cluster{Server: serverURL, CertificateAuthorityData: caData}
	cfg.AuthInfos[AdminUser] = &clientcmdapi.AuthInfo{ClientCertificateData: certData, ClientKeyData: keyData}
	cfg.Contexts[ContextName] = &clientcmdapi.Context{Cluster: ContextName, AuthInfo: AdminUser, Namespace: "default"}
	cfg.CurrentContext = ContextName
	data, err := clientcmd.Write(*cfg)
	if err != nil {
		return fmt.Errorf("certs: kubeconfig: %w", err)
	}
	// clientcmd.WriteToFile keeps the mode of a file that exists; the
	// kubeconfig holds a key, so it is always replaced 0600.
	return writeAtomic(path, data, 0o600)
}
