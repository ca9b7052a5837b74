// The console's entry: login, the navigation from discovery, and the
// views by the URL's fragment:
//   #/                                  specd's own state
//   #/r/GROUP/VERSION/PLURAL?ns=&labelSelector=&fieldSelector=
//   #/o/GROUP/VERSION/PLURAL/NAMESPACE/NAME   (NAMESPACE "-": cluster-scoped)
//   #/new/GROUP/VERSION/PLURAL?ns=
// GROUP is "core" for the core group.

import { API, APIError, savedToken, saveToken } from "./api.js";
import { discover, findResource } from "./discovery.js";
import { h, replace, errorView } from "./dom.js";
import { listView } from "./list.js";
import { objectView, createView } from "./object.js";
import { specdView } from "./specd.js";

/** @param {string} id @returns {HTMLElement} */
const byId = (id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @type {AbortController|undefined} */
let current;

async function start() {
  byId("login-form").addEventListener("submit", (e) => {
    e.preventDefault();
    const token = /** @type {HTMLInputElement} */ (byId("token")).value.trim();
    login(token);
  });
  byId("logout").addEventListener("click", () => {
    saveToken("");
    location.reload();
  });
  await login(savedToken(), true);
}

/**
 * Tries the token (or none: a client certificate) against the API; shows
 * the console when the API knows the user, the login form when not.
 * @param {string} token @param {boolean} [quiet] no error for a first try
 */
async function login(token, quiet = false) {
  const api = new API(token);
  try {
    const me = await api.whoami();
    if (!me.username || me.username === "system:anonymous") throw new APIError(401, { message: "not logged in" });
    saveToken(token);
    byId("whoami").textContent = `${me.username} (${me.groups.join(", ")})`;
    byId("login").hidden = true;
    byId("app").hidden = false;
    byId("logout").hidden = !token;
    const groups = await discover(api);
    navigation(groups);
    window.addEventListener("hashchange", () => route(api, groups));
    await route(api, groups);
  } catch (err) {
    byId("login").hidden = false;
    byId("app").hidden = true;
    byId("login-error").textContent = quiet && !token ? "" : `Login failed: ${/** @type {Error} */ (err).message}`;
    if (!quiet || token) /** @type {HTMLInputElement} */ (byId("token")).focus();
  }
}

/** @param {import("./discovery.js").Group[]} groups */
function navigation(groups) {
  replace(byId("nav"), h("ul", {}, h("li", {}, h("a", { href: "#/" }, "specd status"))),
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
  const r = findResource(groups, group === "core" ? "" : group, plural);
  if (!r) {
    replace(view, errorView(new Error(`No resource ${plural} in ${group}.`)));
    return;
  }
  if (what === "r") await listView(api, r, query, view, current.signal);
  else if (what === "o") {
    const g = groups.find((x) => x.name === r.group);
    await objectView(api, r, parts[4] === "-" ? "" : parts[4], parts[5], view, g ? g.versions : [r.version]);
  }
  else if (what === "new") createView(api, r, query.get("ns") || "default", view);
}

start();
