package conformance

import (
	_ "embed"
	"regexp"
	"strings"
)

// Focus is what docs/conformance.md covers, as ginkgo focus expressions:
// every [sig-api-machinery] test, [Slow] and [Serial] ones included, and
// those of [sig-auth], [sig-node] and [sig-instrumentation] that use only
// what specd serves for them (ConfigMaps, Secrets, Events, Leases, RBAC,
// the reviews), chosen by reading them. ServiceAccounts' kube-root-ca.crt
// test uses only ConfigMaps, and one controller.
var Focus = []string{
	`\[sig-api-machinery\]`,
	`\[sig-auth\] (SubjectReview|SelfSubjectReview) `,
	`\[sig-auth\] ServiceAccounts should guarantee kube-root-ca.crt exist in any namespace`,
	`\[sig-node\] ConfigMap should (fail to create ConfigMap with empty key|update ConfigMap successfully|run through a ConfigMap lifecycle)`,
	`\[sig-node\] Secrets should (fail to create secret due to empty secret key|patch a secret)`,
	`\[sig-node\] Lease lease API should be available`,
	`\[sig-instrumentation\] Events (API )?should`,
}

// Skip are the tests of the focus that no run starts: those that stop
// or break the cluster's components ([Disruptive]), which here would be
// specd itself, and the API chunking tests, whose set-up creates
// PodTemplates, which specd does not serve, in goroutines: their failure
// there panics and ends the whole run; so does the Table test that lists them in chunks.
var Skip = []string{
	`\[Disruptive\]`,
	`\[sig-api-machinery\] Servers with support for API chunking `,
	`\[sig-api-machinery\] Servers with support for Table transformation should return chunks of table results for list calls`,
}

// focus matches the tests of Focus.
var focus = regexp.MustCompile(anyOf(Focus))

// InFocus are the results of the tests that Focus names.
func InFocus(results []Result) []Result {
	var out []Result
	for _, r := range results {
		if focus.MatchString(r.Name) {
			out = append(out, r)
		}
	}
	return out
}

//go:embed passing.txt
var passingList string

// Flaky reports whether the test named name fails at times even when it
// passed, so CI does not run it: kube marks it [Flaky] (it fails at times
// on any cluster).
func Flaky(name string) bool {
	return strings.Contains(name, "[Flaky]")
}

// Passing are the tests of the focus that pass against specd
// (passing.txt, one full name a line): CI runs them, so they keep
// passing.
func Passing() []string {
	var out []string
	for _, line := range strings.Split(passingList, "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}
