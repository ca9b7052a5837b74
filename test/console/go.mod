module github.com/specd-io/specd/test/console

go 1.26.0

require (
	github.com/chromedp/cdproto v0.159.0
	github.com/chromedp/chromedp v0.23.0
)

require (
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	gopkg.in/go-jose/go-jose.v2 v2.6.3 // indirect
)

// The test OIDC issuer of specd's own tests (internal/testpki).
require github.com/specd-io/specd v0.0.0

replace github.com/specd-io/specd => ../..
