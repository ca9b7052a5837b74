// Package testhelm runs the pinned Helm (test/helm, `make helm`) for a
// test, with a home of its own so that no user's configuration, cache or
// repositories change what is tested: test/chart checks the chart's
// renderings with it, and test/aggregated installs the host objects of
// the chart's aggregated rendering from it.
package testhelm
