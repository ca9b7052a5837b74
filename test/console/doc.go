// Package console tests specd's console (server/console) in headless
// Chromium, driven by github.com/chromedp/chromedp, against the real
// specd binary ($SPECD_BIN, or one built from the repository) serving
// the example schemas over TLS with a token file. Chromium is Debian's
// chromium package, found on PATH ($CHROMIUM to name another).
//
// Each scenario saves a screenshot (PNG) in its artifact directory: run
// with -artifacts to keep them (go test -artifacts -outputdir DIR).
//
// TestConsole also checks each page with axe-core's WCAG rules, which
// npm ci installs at the version axe/package-lock.json pins, and logs in
// through the test OIDC issuer of internal/testpki (hence the replace of
// specd's own module in go.mod).
//
// TestTypes type-checks the console's modules by their JSDoc types with
// the TypeScript test/clients/ts pins (tsc --checkJs, through
// server/console/jsconfig.json): it needs node and npm.
//
// It is a module of its own so that chromedp is no dependency of specd.
package console
