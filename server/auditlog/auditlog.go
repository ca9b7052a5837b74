package auditlog

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"gopkg.in/natefinch/lumberjack.v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/audit/policy"
	pluginlog "k8s.io/apiserver/plugin/pkg/audit/log"
	"sigs.k8s.io/yaml"
)

// New loads the policy and opens the log the flags name. It answers nil,
// nil when they name neither: then WithAudit leaves requests unaudited.
// The backend's Shutdown closes the log file.
func New(f Flags) (audit.PolicyRuleEvaluator, audit.Backend, error) {
	if !f.configured() {
		return nil, nil, nil
	}
	if err := f.Check(); err != nil {
		return nil, nil, err
	}
	p, err := loadPolicy(f.PolicyFile)
	if err != nil {
		return nil, nil, err
	}
	w, err := openLog(f)
	if err != nil {
		return nil, nil, err
	}
	format := f.Format
	if format == "" {
		format = pluginlog.FormatJson
	}
	b := pluginlog.NewBackend(w, format, auditv1.SchemeGroupVersion)
	return policy.NewPolicyRuleEvaluator(p), closingBackend{Backend: b, w: w}, nil
}

// loadPolicy reads and validates a Policy file. k8s.io/apiserver's
// errors say what is wrong (the field of a bad level, the unknown
// apiVersion); this adds which file.
func loadPolicy(path string) (*auditinternal.Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--audit-policy-file: %w", err)
	}
	if err := checkTypeMeta(data); err != nil {
		return nil, fmt.Errorf("--audit-policy-file %s: %w", path, err)
	}
	p, err := policy.LoadPolicyFromBytes(data)
	if err != nil {
		return nil, fmt.Errorf("--audit-policy-file %s: %w", path, err)
	}
	return p, nil
}

// checkTypeMeta names the apiVersion or kind that is wrong, which
// k8s.io/apiserver reports in terms of its scheme's internal version.
func checkTypeMeta(data []byte) error {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(data, &tm); err != nil {
		return err
	}
	if tm.APIVersion != auditv1.SchemeGroupVersion.String() || tm.Kind != "Policy" {
		return fmt.Errorf("apiVersion %q, kind %q: want apiVersion %s, kind Policy", tm.APIVersion, tm.Kind, auditv1.SchemeGroupVersion)
	}
	return nil
}

// openLog opens the log for appending, made 0600 in a directory made
// 0700 when missing, as kube-apiserver does: audit events carry request
// bodies. lumberjack rotates it, as in kube-apiserver, unless MaxSize is 0.
func openLog(f Flags) (io.Writer, error) {
	if f.LogPath == "-" {
		return os.Stdout, nil
	}
	if err := os.MkdirAll(filepath.Dir(f.LogPath), 0o700); err != nil {
		return nil, fmt.Errorf("--audit-log-path: %w", err)
	}
	file, err := os.OpenFile(f.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--audit-log-path: %w", err)
	}
	if f.MaxSize == 0 {
		return file, nil
	}
	// lumberjack opens the file itself; this one only proved it can be.
	if err := file.Close(); err != nil {
		return nil, fmt.Errorf("--audit-log-path: %w", err)
	}
	return &lumberjack.Logger{Filename: f.LogPath, MaxAge: f.MaxAge, MaxBackups: f.MaxBackups, MaxSize: f.MaxSize}, nil
}

// closingBackend closes the log file when the backend shuts down.
type closingBackend struct {
	audit.Backend
	w io.Writer
}

func (b closingBackend) Shutdown() {
	b.Backend.Shutdown()
	c, ok := b.w.(io.Closer)
	if !ok || b.w == io.Writer(os.Stdout) {
		return
	}
	if err := c.Close(); err != nil {
		slog.Error("closing the audit log", "err", err)
	}
}
