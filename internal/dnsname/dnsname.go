package dnsname

// Limits of RFC 1123 as Kubernetes applies them.
const (
	labelMaxLength     = 63
	subdomainMaxLength = 253
)

// IsLabel says whether s is a DNS-1123 label: at most 63 lower-case
// alphanumerics or '-', starting and ending with an alphanumeric.
func IsLabel(s string) bool {
	return len(s) <= labelMaxLength && isLabel(s)
}

// IsSubdomain says whether s is a DNS-1123 subdomain: at most 253
// characters of labels joined by '.'.
func IsSubdomain(s string) bool {
	if len(s) > subdomainMaxLength {
		return false
	}
	for {
		i := indexDot(s)
		if i < 0 {
			return isLabel(s)
		}
		if !isLabel(s[:i]) {
			return false
		}
		s = s[i+1:]
	}
}

// isLabel checks a label's characters, whatever its length.
func isLabel(s string) bool {
	if s == "" || !isAlphanumeric(s[0]) || !isAlphanumeric(s[len(s)-1]) {
		return false
	}
	for i := 1; i < len(s)-1; i++ {
		if c := s[i]; c != '-' && !isAlphanumeric(c) {
			return false
		}
	}
	return true
}

func isAlphanumeric(c byte) bool {
	return 'a' <= c && c <= 'z' || '0' <= c && c <= '9'
}

func indexDot(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '.' {
			return i
		}
	}
	return -1
}
