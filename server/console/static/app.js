// The console's entry: login, the navigation from discovery, and the
// views by the URL's fragment:
//   #/                                  specd's own state
//   #/r/GROUP/VERSION/PLURAL?ns=&labelSelector=&fieldSelector=
//   #/o/GROUP/VERSION/PLURAL/NAMESPACE/NAME   (NAMESPACE "-": cluster-scoped)
//   #/new/GROUP/VERSION/PLURAL?ns=
//   #/me?ns=                            who am I, what may I do there
// GROUP is "core" for the core group.

import { API, APIError, savedToken, saveToken, unauthorized } from "./api.js";
import { discover, findResource } from "./discovery.js";
import { h, replace, errorView } from "./dom.js";
import { listView } from "./list.js";
import { objectView, createView } from "./object.js";
import { specdView } from "./specd.js";
import { meView } from "./me.js";
import { oidcConfig, startLogin, finishLogin, refresher, forgetRefresh, expiry } from "./oidc.js";

/** @param {string} id @returns {HTMLElement} */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {AbortController|undefined} */
let current;

/** @type {number|undefined} when the token is refreshed next */
let refreshTimer;

/** @type {() => void} shows the view of the address's fragment */
let onHash = () => {};

async function start() {
  byId("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = /** @type {HTMLInputElement} */ (byId("token")).value.trim();
    forgetRefresh(); // a pasted token is no OIDC login's
    login(token);
  });
  window.addEventListener("specd-unauthorized", (e) => {
    if (current) current.abort();
    clearTimeout(refreshTimer);
    saveToken("");
    byId("app").hidden = true;
    byId("logout").hidden = true;
    byId("whoami").textContent = "";
    byId("login").hidden = false;
    byId("login-error").textContent = /** @type {CustomEvent} */ (e).detail;
  });
  byId("logout").addEventListener("click", () => {
    saveToken("");
    forgetRefresh();
    location.reload();
  });
  /** @type {import("./oidc.js").OIDCConfig} */
  const oidc = await oidcConfig().catch(() => ({}));
  if (oidc.issuerURL) {
    const button = byId("oidc-login");
    button.hidden = false;
    button.addEventListener("click", () => startLogin(oidc).catch((err) => {
      byId("login-error").textContent = `Login failed: ${err.message}`;
    }));
  }
  let token = savedToken();
  try {
    const fromIssuer = await finishLogin(oidc);
    const fromLink = fromIssuer ? "" : await redeemLink();
    if (fromLink) forgetRefresh(); // the link's token is no OIDC login's
    token = fromIssuer || fromLink || token;
  } catch (err) {
    byId("login-error").textContent = `The login did not finish: ${/** @type {Error} */ (err).message}`;
  }
  await login(token, true);
}

/**
 * The login link specd logs at start (#login=CODE): the code is taken
 * out of the address at once and traded, once, for a bearer token.
 * @returns {Promise<string>} the token, or "" when the page was not
 *   opened by the link
 */
async function redeemLink() {
  const m = location.hash.match(/^#login=([A-Za-z0-9]+)$/);
  if (!m) return "";
  history.replaceState(null, "", location.pathname);
  const resp = await fetch("login", { method: "POST", body: m[1], cache: "no-store", credentials: "omit" });
  const answer = await resp.json().catch(() => ({}));
  if (!resp.ok) throw new Error(answer.message || `HTTP ${resp.status}`);
  return answer.token;
}

/**
 * Tries the token (or none: a client certificate) against the API; shows
 * the console when the API knows the user, the login form when not.
 * @param {string} token @param {boolean} [quiet] no error for a first try
 */
async function login(token, quiet = false) {
  const api = new API(token, refresher());
  try {
    const me = await api.whoami();
    if (!me.username || me.username === "system:anonymous") throw new APIError(401, { message: "not logged in" });
    saveToken(api.token); // refreshed, if the API refused token
    keepFresh(api);
    byId("whoami").textContent = `${me.username} (${me.groups.join(", ")})`;
    byId("login").hidden = true;
    byId("app").hidden = false;
    byId("logout").hidden = !token;
    const groups = await discover(api);
    navigation(groups);
    // One listener, this login's: a login after an expired one replaces it.
    window.removeEventListener("hashchange", onHash);
    onHash = () => route(api, groups);
    window.addEventListener("hashchange", onHash);
    await route(api, groups);
  } catch (err) {
    byId("login").hidden = false;
    byId("app").hidden = true;
    if (!quiet || token) byId("login-error").textContent = `Login failed: ${/** @type {Error} */ (err).message}`;
    if (!quiet || token) /** @type {HTMLInputElement} */ (byId("token")).focus();
  }
}

/**
 * Refreshes api's token before it expires, when a quarter of the time
 * left (at most a minute) remains, and again after each refresh, while
 * the login can be refreshed (an OIDC login with a refresh token).
 * @param {API} api
 */
function keepFresh(api) {
  clearTimeout(refreshTimer);
  const exp = expiry(api.token);
  if (!api.refresh || !exp) return;
  const left = exp - Date.now();
  refreshTimer = setTimeout(() => {
    api.renew().then(() => keepFresh(api), (err) => unauthorized(`${err.message}: log in again.`));
  }, Math.max(0, left - Math.min(60_000, left / 4)));
}

/** @param {import("./discovery.js").Group[]} groups */
function navigation(groups) {
  replace(byId("nav"), h("ul", {}, h("li", {}, h("a", { href: "#/" }, "specd status")), h("li", {}, h("a", { href: "#/me" }, "Who am I"))),
    ...groups.filter((g) => g.resources.length).map((g) => h("div", {},
      h("h2", {}, g.name || "core"),
      h("ul", {}, ...g.resources.map((r) => h("li", {},
        h("a", { href: `#/r/${r.group || "core"}/${r.version}/${r.plural}`, "data-resource": `${r.plural}.${r.group}` }, r.kind)))))));
}

/**
 * Shows the view the fragment names, ending the last view's watches.
 * @param {API} api @param {import("./discovery.js").Group[]} groups
 */
async function route(api, groups) {
  if (current) current.abort();
  current = new AbortController();
  const [path, q] = location.hash.replace(/^#/, "").split("?");
  const query = new URLSearchParams(q || "");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const view = byId("view");
  for (const a of byId("nav").querySelectorAll("a")) {
    a.toggleAttribute("aria-current", a.getAttribute("href") === `#${path}` || (path === "" && a.getAttribute("href") === "#/"));
    if (a.hasAttribute("aria-current")) a.setAttribute("aria-current", "page");
  }
  if (parts.length === 0) {
    specdView(api, view, current.signal);
    return;
  }
  const [what, group, , plural] = parts;
  if (what === "me") {
    await meView(api, query, view);
    return;
  }
  const r = findResource(groups, group === "core" ? "" : group, plural);
  if (!r) {
    replace(view, errorView(new Error(`No resource ${plural} in ${group}.`)));
    return;
  }
  if (what === "r") await listView(api, r, query, view, current.signal);
  else if (what === "o") {
    const g = groups.find((x) => x.name === r.group);
    await objectView(api, r, parts[4] === "-" ? "" : parts[4], parts[5], view, g ? g.versions : [r.version], current.signal);
  }
  else if (what === "new") createView(api, r, query.get("ns") || "default", view);
}

start();
