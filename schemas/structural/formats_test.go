package structural

import (
	"testing"

	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// The direct format checks must agree with kube-openapi's registry.
func TestFormatValidatorsMatchKubeOpenAPI(t *testing.T) {
	inputs := []string{"", "x", "2024-01-02", "2024-01-02T03:04:05Z", "5m", "1 week", "a@b.c", "example.com",
		"123e4567-e89b-12d3-a456-426614174000", "507f1f77bcf86cd799439011", "my-name", "My_Name",
		"10.0.0.1", "::1", "10.0.0.0/8", "00:1a:2b:3c:4d:5e", "aGVsbG8=", "http://x/y", "#fff", "rgb(1,2,3)"}
	for name := range stringFormats {
		var format string
		switch name {
		case "datetime":
			format = "date-time"
		case "k8sshortname":
			format = "k8s-short-name"
		case "k8slongname":
			format = "k8s-long-name"
		default:
			format = name
		}
		if !strfmt.Default.ContainsName(format) {
			t.Errorf("%s: not a kube-openapi format", format)
			continue
		}
		check := formatValidator(format)
		for _, in := range inputs {
			if got, want := check(in), strfmt.Default.Validates(format, in); got != want {
				t.Errorf("%s(%q) = %v, kube-openapi says %v", format, in, got, want)
			}
		}
	}
}
