// OIDC login in the browser: the authorization code flow with PKCE
// (RFC 7636, S256), as a public client of the issuer specd trusts
// (--oidc-issuer-url, --oidc-client-id, read from config.json). The
// page keeps no secret: the verifier, state and nonce live in this tab's
// sessionStorage from the redirect to the issuer until the code comes
// back, and the id token it gets is then used as the bearer token.
//
// When the issuer offers offline_access, the page asks for it, and a
// refresh token that comes back is kept in the tab's sessionStorage too:
// the page trades it at the issuer's token endpoint for a new id token
// before the old one expires, and when the API answers 401 (api.js).
// specd keeps no session either way.

const pendingKey = "specd-console-oidc";
const refreshKey = "specd-console-oidc-refresh";

/**
 * @typedef {{issuerURL?: string, clientID?: string}} OIDCConfig
 * @typedef {{verifier: string, state: string, nonce: string, tokenEndpoint: string, hash: string}} Pending
 * @typedef {{refreshToken: string, tokenEndpoint: string, clientID: string}} Refresh
 */

/** @returns {Promise<OIDCConfig>} the issuer and client specd names, or {} */
export async function oidcConfig() {
  const resp = await fetch("config.json", { cache: "no-store" });
  if (!resp.ok) return {};
  const cfg = await resp.json();
  return cfg.oidc || {};
}

/** @param {number} n @returns {string} n random bytes, base64url */
function random(n) {
  return base64url(crypto.getRandomValues(new Uint8Array(n)));
}

/** @param {Uint8Array} bytes */
function base64url(bytes) {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The page's own URL without query or fragment: the redirect URI. */
function redirectURI() {
  return location.origin + location.pathname;
}

/** @param {string} issuerURL @returns {Promise<any>} the issuer's discovery document */
async function discover(issuerURL) {
  const resp = await fetch(`${issuerURL.replace(/\/$/, "")}/.well-known/openid-configuration`, { cache: "no-store", credentials: "omit" });
  if (!resp.ok) throw new Error(`the issuer's discovery document: HTTP ${resp.status}`);
  return resp.json();
}

/**
 * Sends the browser to the issuer's login; it comes back to this page
 * with a code (finishLogin takes it from there).
 * @param {OIDCConfig} cfg
 */
export async function startLogin(cfg) {
  const doc = await discover(/** @type {string} */ (cfg.issuerURL));
  const verifier = random(32);
  const challenge = base64url(new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier))));
  /** @type {Pending} */
  const pending = { verifier, state: random(16), nonce: random(16), tokenEndpoint: doc.token_endpoint, hash: location.hash };
  sessionStorage.setItem(pendingKey, JSON.stringify(pending));
  const q = new URLSearchParams({
    response_type: "code", client_id: /** @type {string} */ (cfg.clientID), redirect_uri: redirectURI(),
    scope: scopes(doc), state: pending.state, nonce: pending.nonce,
    code_challenge: challenge, code_challenge_method: "S256",
  });
  location.assign(`${doc.authorization_endpoint}?${q}`);
}

/**
 * When the issuer sent the browser back here with a code: redeems it
 * for an id token (with the verifier), checks its nonce, and takes the
 * code out of the address bar. Answers "" when there is no code.
 * @param {OIDCConfig} cfg
 * @returns {Promise<string>} the id token
 */
export async function finishLogin(cfg) {
  const params = new URLSearchParams(location.search);
  const code = params.get("code"), error = params.get("error");
  if (!code && !error) return "";
  const pending = /** @type {Pending|null} */ (JSON.parse(sessionStorage.getItem(pendingKey) || "null"));
  sessionStorage.removeItem(pendingKey);
  history.replaceState(null, "", redirectURI() + (pending ? pending.hash : ""));
  if (error) throw new Error(`the issuer refused: ${error} ${params.get("error_description") || ""}`);
  if (!pending || params.get("state") !== pending.state) throw new Error("the issuer's answer does not match a login this tab started");
  const resp = await fetch(pending.tokenEndpoint, {
    method: "POST", credentials: "omit", cache: "no-store",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({
      grant_type: "authorization_code", code: /** @type {string} */ (code), redirect_uri: redirectURI(),
      client_id: /** @type {string} */ (cfg.clientID), code_verifier: pending.verifier,
    }),
  });
  const answer = await tokens(resp);
  if (claims(answer.id_token).nonce !== pending.nonce) throw new Error("the id token's nonce is not this login's");
  keepRefresh(answer.refresh_token, pending.tokenEndpoint, /** @type {string} */ (cfg.clientID));
  return answer.id_token;
}

/**
 * The scopes to ask for: offline_access too when the issuer lists it,
 * which is what most issuers (Dex, Okta, Entra ID) want before they give
 * a refresh token; one that does not list it may refuse it.
 * @param {any} doc the issuer's discovery document
 */
function scopes(doc) {
  const offline = Array.isArray(doc.scopes_supported) && doc.scopes_supported.includes("offline_access");
  return `openid email profile${offline ? " offline_access" : ""}`;
}

/**
 * @param {Response} resp the token endpoint's answer
 * @returns {Promise<{id_token: string, refresh_token?: string}>} its tokens, when it has an id token
 */
async function tokens(resp) {
  const answer = await resp.json().catch(() => ({}));
  if (!resp.ok || !answer.id_token) throw new Error(`the issuer's token endpoint answered ${answer.error || `HTTP ${resp.status}`} ${answer.error_description || ""}`.trim());
  return answer;
}

/**
 * Keeps the refresh token of this tab's login, or forgets it.
 * @param {string|undefined} refreshToken @param {string} tokenEndpoint @param {string} clientID
 */
function keepRefresh(refreshToken, tokenEndpoint, clientID) {
  if (!refreshToken) {
    sessionStorage.removeItem(refreshKey);
    return;
  }
  /** @type {Refresh} */
  const r = { refreshToken, tokenEndpoint, clientID };
  sessionStorage.setItem(refreshKey, JSON.stringify(r));
}

/** Forgets the refresh token: at log out, or at another kind of login. */
export function forgetRefresh() {
  sessionStorage.removeItem(refreshKey);
}

/**
 * A function that trades this tab's refresh token for a new id token,
 * or undefined when the tab's login has no refresh token.
 * @returns {(() => Promise<string>)|undefined}
 */
export function refresher() {
  if (!sessionStorage.getItem(refreshKey)) return undefined;
  return refresh;
}

/**
 * Trades the refresh token for a new id token (and the refresh token
 * the issuer rotates it to); forgets it when the issuer refuses it.
 * @returns {Promise<string>} the new id token
 */
async function refresh() {
  const r = /** @type {Refresh|null} */ (JSON.parse(sessionStorage.getItem(refreshKey) || "null"));
  if (!r) throw new Error("this tab has no refresh token");
  try {
    const resp = await fetch(r.tokenEndpoint, {
      method: "POST", credentials: "omit", cache: "no-store",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: r.refreshToken, client_id: r.clientID }),
    });
    const answer = await tokens(resp);
    // An issuer that does not rotate answers no new refresh token.
    keepRefresh(answer.refresh_token || r.refreshToken, r.tokenEndpoint, r.clientID);
    return answer.id_token;
  } catch (err) {
    forgetRefresh();
    throw new Error(`Your OIDC login could not be refreshed: ${/** @type {Error} */ (err).message}`);
  }
}

/**
 * When token expires, by its exp claim.
 * @param {string} token
 * @returns {number} ms since the epoch, or 0 for a token that is no JWT or has no exp
 */
export function expiry(token) {
  try {
    const exp = claims(token).exp;
    return typeof exp === "number" ? exp * 1000 : 0;
  } catch {
    return 0;
  }
}

/** @param {string} jwt @returns {any} its claims, unverified (the API verifies the signature) */
function claims(jwt) {
  const part = jwt.split(".")[1] || "";
  return JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/")));
}
