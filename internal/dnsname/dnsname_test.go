package dnsname

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/validation"
)

// cases are names on both sides of every rule, with what the library says
// of them as the reference.
var cases = []string{
	"", "a", "0", "-", "a-", "-a", "a-b", "a--b", "A", "aB", "a_b", "a.b", ".a", "a.", "a..b",
	"abc.def-ghi.jk0", "default", "kube-system", "é", "a b", "a/b", "a%b", "1.2.3.4",
	strings.Repeat("a", 63), strings.Repeat("a", 64),
	strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 61),
	strings.Repeat("a", 63) + "." + strings.Repeat("b", 63) + "." + strings.Repeat("c", 63) + "." + strings.Repeat("d", 62),
	strings.Repeat("a", 64) + ".b",
}

func TestIsLabelAgreesWithApimachinery(t *testing.T) {
	for _, s := range cases {
		if got, want := IsLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("IsLabel(%q) = %v, apimachinery says %v", s, got, want)
		}
	}
}

func TestIsSubdomainAgreesWithApimachinery(t *testing.T) {
	for _, s := range cases {
		if got, want := IsSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("IsSubdomain(%q) = %v, apimachinery says %v", s, got, want)
		}
	}
}

func FuzzAgreesWithApimachinery(f *testing.F) {
	for _, s := range cases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := IsLabel(s), len(validation.IsDNS1123Label(s)) == 0; got != want {
			t.Errorf("IsLabel(%q) = %v, apimachinery says %v", s, got, want)
		}
		if got, want := IsSubdomain(s), len(validation.IsDNS1123Subdomain(s)) == 0; got != want {
			t.Errorf("IsSubdomain(%q) = %v, apimachinery says %v", s, got, want)
		}
	})
}

func BenchmarkIsSubdomain(b *testing.B) {
	for b.Loop() {
		IsSubdomain("widget-00042.shop.example.com")
	}
}

func BenchmarkApimachineryIsDNS1123Subdomain(b *testing.B) {
	for b.Loop() {
		validation.IsDNS1123Subdomain("widget-00042.shop.example.com")
	}
}
