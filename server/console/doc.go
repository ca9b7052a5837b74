// Package console is specd's console in the browser: static files
// embedded in the binary (static/), served at /console/ by Handler.
//
// The console is a pure client of specd's API. The files carry no data
// and need no login; every read and write the page makes goes to the API
// with the credentials the user gives it (a bearer token, kept in the
// tab's sessionStorage), through the same authentication, RBAC, audit and
// fairness as kubectl. Handler sets no cookie and adds no CORS header; it
// sends a Content-Security-Policy that lets the page load only its own
// files and talk only to its own origin.
//
// The page is native ES modules with JSDoc types: no build step, nothing
// generated. jsconfig.json (not embedded) is how tsc --checkJs checks
// them. docs/console.md is the user's guide; test/console drives it
// in headless Chromium against a real specd.
package console
