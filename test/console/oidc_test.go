package console

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/specd-io/specd/internal/testpki"
)

// oidcClientID is the client the console logs in as: a public client
// of the test's issuer, whose id tokens specd accepts.
const oidcClientID = "specd-console"

// tokenCacheTTL is how long specd takes a token it has seen valid
// without checking it again (server/authn's tokenSuccessTTL): an expired
// id token is refused only after it.
const tokenCacheTTL = 10 * time.Second

// oidcArgs answers iss (an OpenID provider of the test, the one specd's
// authentication tests use, with its login form) and the flags that make
// specd trust it, users prefixed "oidc:".
func oidcArgs(t testing.TB, iss *testpki.Issuer) (*testpki.Issuer, []string) {
	t.Helper()
	ca := filepath.Join(t.TempDir(), "oidc-ca.pem")
	if err := os.WriteFile(ca, iss.CAPEM(), 0o644); err != nil {
		t.Fatal(err)
	}
	return iss, []string{"--oidc-issuer-url", iss.URL, "--oidc-client-id", oidcClientID, "--oidc-ca-file", ca,
		"--oidc-username-prefix", "oidc:", "--oidc-groups-claim", "groups", "--oidc-groups-prefix", "oidc:"}
}

// oidcLogin opens the console at fragment in tab and logs in there as
// olivia of group ops through the issuer's login form, checking that
// the page comes back to fragment with the code out of the address.
func oidcLogin(t *testing.T, tab context.Context, s *specd, issuer, fragment string) {
	t.Helper()
	run(t, tab, "go to the issuer", chromedp.Navigate(s.URL+"/console/"+fragment),
		chromedp.WaitVisible(chromedp.ID("oidc-login")), chromedp.Click(chromedp.ID("oidc-login")))
	waitURL(t, tab, issuer+"/auth?")
	run(t, tab, "the issuer's form", chromedp.WaitVisible(chromedp.ID("username")))
	screenshot(t, tab, "oidc-issuer")
	run(t, tab, "log in at the issuer", chromedp.SendKeys(chromedp.ID("username"), "olivia"),
		chromedp.SendKeys(chromedp.ID("groups"), "ops"), chromedp.Click(chromedp.ID("issuer-login")))
	waitURL(t, tab, s.URL+"/console/")
	run(t, tab, "back in the console", waitText("#whoami", "oidc:olivia"), waitText("#whoami", "oidc:ops"))
	// Back where the login started, with the code out of the address.
	url := value(t, tab, "read the address", chromedp.Location())
	if want := s.URL + "/console/" + fragment; url != want {
		t.Errorf("after the login the page is at %s, want %s", url, want)
	}
}

// TestOIDCRefresh logs in by OIDC to an issuer whose id tokens last
// 10 s and who gives refresh tokens: the page refreshes the token before
// it expires, refreshes an expired one when the API answers 401 and
// sends the request again, and shows the login form, saying why, when
// the issuer refuses the refresh.
func TestOIDCRefresh(t *testing.T) {
	const lifetime = 10 * time.Second
	issuer, oidc := oidcArgs(t, testpki.NewIssuer(t, testpki.WithTokenLifetime(lifetime)))
	s := startSpecd(t, oidc...)
	browser := newBrowser(t)
	net := newNetLog()
	tab := newTab(t, browser, net.listen)
	oidcLogin(t, tab, s, issuer.URL, "#/me")
	first := savedToken(t, tab)

	// Before it expires: no 401 asks for it.
	eventually(t, "the token refreshed", func() bool { return savedToken(t, tab) != first })
	if issuer.Refreshes() != 1 {
		t.Errorf("the issuer refreshed %d times, want once", issuer.Refreshes())
	}
	if time.Now().After(tokenExpiry(t, first)) {
		t.Errorf("the token was refreshed after it expired (at %s)", tokenExpiry(t, first))
	}
	run(t, tab, "what olivia may do, asked with the new token", chromedp.Navigate(s.URL+"/console/#/me?ns=default"),
		waitText("#rules", "selfsubjectreviews"))

	// A page opened again after its token expired: the API answers 401,
	// and the page refreshes and asks again.
	second := savedToken(t, tab)
	run(t, tab, "leave the console", chromedp.Navigate("about:blank"))
	time.Sleep(time.Until(tokenExpiry(t, second).Add(tokenCacheTTL + time.Second)))
	net.reset()
	run(t, tab, "back in the console with an expired token", chromedp.Navigate(s.URL+"/console/#/me"),
		waitText("#whoami", "oidc:olivia"), waitText("#me", "oidc:olivia"))
	reviews := net.find(func(r *sentRequest) bool { return strings.HasSuffix(r.URL.Path, "/selfsubjectreviews") })
	if len(reviews) < 2 || reviews[0].Status != http.StatusUnauthorized || reviews[1].Status != http.StatusCreated {
		t.Errorf("the page's SelfSubjectReviews: %v, want a 401 and then, after a refresh, a 201", reviews)
	}
	if issuer.Refreshes() < 2 || savedToken(t, tab) == second {
		t.Errorf("after the 401 the issuer refreshed %d times in all, and the token is the expired one: %v", issuer.Refreshes(), savedToken(t, tab) == second)
	}
	screenshot(t, tab, "oidc-refreshed")

	// The issuer ends the session: the next refresh fails, and the page
	// says so.
	issuer.RevokeRefreshTokens()
	run(t, tab, "the refusal shown", chromedp.WaitVisible(chromedp.ID("login")),
		waitText("#login-error", "could not be refreshed"), waitText("#login-error", "invalid_grant"))
	if visible := value(t, tab, "is the console shown", chromedp.Evaluate[bool](appShown)); visible {
		t.Error("the console stays shown after the refresh failed")
	}
	if who := value(t, tab, "read who is logged in", chromedp.Text(chromedp.ID("whoami"))); who != "" {
		t.Errorf("the page still says %q is logged in", who)
	}
	screenshot(t, tab, "oidc-refresh-refused")
}

// savedToken is the token the console keeps in tab's sessionStorage.
func savedToken(t testing.TB, tab context.Context) string {
	t.Helper()
	return value(t, tab, "read the token", chromedp.Evaluate[string](`sessionStorage.getItem("specd-console-token") || ""`))
}

// tokenExpiry reads the exp claim of a JWT.
func tokenExpiry(t testing.TB, jwt string) time.Time {
	t.Helper()
	parts := strings.Split(jwt, ".")
	if len(parts) != 3 {
		t.Fatalf("the token %q is no JWT", jwt)
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var claims struct {
		Exp int64 `json:"exp"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	return time.Unix(claims.Exp, 0)
}
