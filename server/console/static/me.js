// "Who am I and what may I do here": the user from SelfSubjectReview and
// the rules RBAC grants them in a namespace from SelfSubjectRulesReview,
// as `kubectl auth whoami` and `kubectl auth can-i --list` show them.

import { h, replace, errorView } from "./dom.js";

/**
 * @param {import("./api.js").API} api
 * @param {URLSearchParams} query ns: the namespace the rules are for
 * @param {HTMLElement} view
 */
export async function meView(api, query, view) {
  const ns = query.get("ns") || "default";
  try {
    const [me, review] = await Promise.all([api.whoami(), api.create("/apis/authorization.k8s.io/v1/selfsubjectrulesreviews", {
      apiVersion: "authorization.k8s.io/v1", kind: "SelfSubjectRulesReview", spec: { namespace: ns },
    })]);
    const st = review.status || {};
    replace(view, h("h2", {}, "Who am I"),
      h("dl", { id: "me" }, h("dt", {}, "User"), h("dd", {}, me.username), h("dt", {}, "Groups"), h("dd", {}, me.groups.join(", "))),
      nsForm(ns),
      h("h3", { id: "rules-title" }, `What I may do in ${ns}`),
      st.incomplete ? h("p", { class: "hint" }, `The list may be incomplete: ${st.evaluationError || "another authorizer decides too"}.`) : null,
      resourceRules(st.resourceRules || []),
      h("h3", { id: "paths-title" }, "Paths I may use"),
      pathRules(st.nonResourceRules || []));
  } catch (err) {
    replace(view, errorView(err));
  }
}

/** @param {string} ns */
function nsForm(ns) {
  return h("form", {
    class: "filters", "aria-label": "Namespace of the rules",
    onsubmit: (/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      const v = new FormData(/** @type {HTMLFormElement} */ (e.target)).get("ns");
      location.hash = `#/me?ns=${encodeURIComponent(String(v || "default"))}`;
    },
  }, h("label", {}, "Namespace", h("input", { name: "ns", value: ns })), h("button", { type: "submit" }, "Show"));
}

/** @param {string[]|undefined} xs */
const list = (xs) => (xs && xs.length ? xs.map((x) => x || '""').join(", ") : "");

/** @param {any[]} rules */
function resourceRules(rules) {
  if (rules.length === 0) return h("p", { class: "hint", id: "rules" }, "Nothing.");
  return h("table", { id: "rules", "aria-labelledby": "rules-title" },
    h("thead", {}, h("tr", {}, ...["Verbs", "API groups", "Resources", "Names"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...rules.map((r) => h("tr", {},
      h("td", {}, list(r.verbs)), h("td", {}, list(r.apiGroups)), h("td", {}, list(r.resources)), h("td", {}, list(r.resourceNames))))));
}

/** @param {any[]} rules */
function pathRules(rules) {
  if (rules.length === 0) return h("p", { class: "hint" }, "None.");
  return h("table", { id: "paths", "aria-labelledby": "paths-title" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Verbs"), h("th", { scope: "col" }, "Paths"))),
    h("tbody", {}, ...rules.map((r) => h("tr", {}, h("td", {}, list(r.verbs)), h("td", {}, list(r.nonResourceURLs))))));
}
