package build

import (
	"bytes"
	"encoding/pem"
	"fmt"

	"golang.org/x/crypto/x509roots/fallback/bundle"
)

// caCertificates is the PEM bundle of the roots Mozilla's NSS trusts, as
// the Go project publishes them in golang.org/x/crypto/x509roots/fallback
// (the roots Go's own x509.SetFallbackRoots uses).
//
// Not the build machine's /etc/ssl/certs/ca-certificates.crt: that file
// is whatever version of Debian's ca-certificates the machine has, so two
// machines would build different images from one commit. The module is
// pinned and checksummed by go.sum, and updated by a commit like any
// dependency.
//
// A root that NSS trusts only for certificates issued before a date is
// left out: a PEM file cannot say so, and trusting it without the date
// is trusting more than NSS does.
func caCertificates() ([]byte, error) {
	var buf bytes.Buffer
	n := 0
	for root := range bundle.Roots() {
		if root.Constraint != nil {
			continue
		}
		if err := pem.Encode(&buf, &pem.Block{Type: "CERTIFICATE", Bytes: root.Certificate}); err != nil {
			return nil, fmt.Errorf("image: CA certificates: %w", err)
		}
		n++
	}
	if n == 0 {
		return nil, fmt.Errorf("image: CA certificates: the bundle holds no unconstrained root")
	}
	return buf.Bytes(), nil
}
