// A resource's objects: the API's Table with the kind's printer columns,
// filtered by namespace and selectors, kept current by a watch.

import { collectionPath } from "./api.js";
import { h, replace, errorView } from "./dom.js";

/** How many rows one page of the list asks for. */
const pageSize = 500;

/**
 * @param {import("./api.js").API} api
 * @param {import("./discovery.js").Resource} r
 * @param {URLSearchParams} query ns, labelSelector, fieldSelector
 * @param {HTMLElement} view
 * @param {AbortSignal} signal ends the watch when the view changes
 */
export async function listView(api, r, query, view, signal) {
  const ns = query.get("ns") || "";
  const [canCreate, canDelete] = await Promise.all([
    r.verbs.includes("create") ? api.can("create", r.group, r.plural, ns).catch(() => false) : false,
    r.verbs.includes("delete") ? api.can("delete", r.group, r.plural, ns).catch(() => false) : false,
  ]);
  const gv = r.group ? `${r.group}/${r.version}` : r.version;
  const rows = h("div", { class: "scroller" });
  const status = h("p", { class: "hint", id: "list-status" });
  replace(view,
    h("h2", {}, `${r.kind} `, h("span", { class: "hint" }, gv)),
    filters(r, query),
    canCreate ? h("p", {}, h("a", { href: `#/new/${r.group || "core"}/${r.version}/${r.plural}?ns=${encodeURIComponent(ns || "default")}`, id: "create" }, `Create ${r.kind}`)) : null,
    status, rows);
  const path = withQuery(collectionPath(r, ns), query);
  const render = async () => {
    try {
      const table = await api.table(withLimit(path));
      replace(rows, tableView(api, r, table, canDelete, render));
      // For docs/performance.md: when the first rows are on screen.
      if (performance.getEntriesByName("specd-console:rows").length === 0) performance.mark("specd-console:rows");
      status.textContent = `${table.rows.length} shown${table.metadata.continue ? ", more on the server: narrow the filters" : ""}. Live.`;
      return table.metadata.resourceVersion;
    } catch (err) {
      replace(rows, errorView(err));
      return "";
    }
  };
  const rv = await render();
  if (rv && r.verbs.includes("watch")) follow(api, path, rv, render, signal);
}

/**
 * Watches path and renders again after each change (at most every
 * 100 ms); starts over from a new list when the watch ends.
 * @param {import("./api.js").API} api @param {string} path @param {string} rv
 * @param {() => Promise<string>} render @param {AbortSignal} signal
 */
async function follow(api, path, rv, render, signal) {
  /** @type {number|undefined} */
  let pending;
  while (!signal.aborted) {
    try {
      await api.watch(path, rv, (ev) => {
        if (ev.type === "BOOKMARK" || ev.type === "ERROR") return;
        clearTimeout(pending);
        pending = setTimeout(render, 100);
      }, signal);
    } catch (err) {
      if (signal.aborted) return;
      await new Promise((res) => setTimeout(res, 1000));
    }
    if (signal.aborted) return;
    rv = await render();
  }
}

/** @param {string} path @param {URLSearchParams} query */
function withQuery(path, query) {
  const q = new URLSearchParams();
  for (const k of ["labelSelector", "fieldSelector"]) {
    const v = query.get(k);
    if (v) q.set(k, v);
  }
  const s = q.toString();
  return s ? `${path}?${s}` : path;
}

/** @param {string} path */
function withLimit(path) {
  return `${path}${path.includes("?") ? "&" : "?"}limit=${pageSize}`;
}

/**
 * The filter form: namespace, label and field selectors, kept in the
 * URL so a view can be shared.
 * @param {import("./discovery.js").Resource} r @param {URLSearchParams} query
 */
function filters(r, query) {
  /** @param {string} name @param {string} label @param {string} placeholder */
  const field = (name, label, placeholder) => h("label", {}, label,
    h("input", { name, value: query.get(name) || "", placeholder }));
  return h("form", {
    class: "filters", role: "search", "aria-label": "Filter the list",
    onsubmit: (/** @type {SubmitEvent} */ e) => {
      e.preventDefault();
      const form = /** @type {HTMLFormElement} */ (e.target);
      const q = new URLSearchParams();
      for (const [k, v] of new FormData(form)) if (v) q.set(k, String(v));
      location.hash = `#/r/${r.group || "core"}/${r.version}/${r.plural}?${q}`;
    },
  },
  r.namespaced ? field("ns", "Namespace", "all namespaces") : null,
  field("labelSelector", "Label selector", "app=web,tier!=db"),
  field("fieldSelector", "Field selector", "metadata.name=x"),
  h("button", { type: "submit" }, "Filter"));
}

/**
 * @param {import("./api.js").API} api
 * @param {import("./discovery.js").Resource} r
 * @param {any} table a meta.k8s.io Table
 * @param {boolean} canDelete
 * @param {() => Promise<string>} render
 */
function tableView(api, r, table, canDelete, render) {
  const cols = table.columnDefinitions.filter((/** @type {any} */ c) => !c.priority);
  const idx = cols.map((/** @type {any} */ c) => table.columnDefinitions.indexOf(c));
  const head = h("tr", {}, ...(r.namespaced ? [h("th", { scope: "col" }, "Namespace")] : []),
    ...cols.map((/** @type {any} */ c) => h("th", { scope: "col", title: c.description || "" }, c.name)),
    canDelete ? h("th", { scope: "col" }, h("span", { class: "hint" }, "Actions")) : null);
  const body = table.rows.map((/** @type {any} */ row) => {
    const meta = (row.object && row.object.metadata) || {};
    const ns = meta.namespace || "";
    const href = `#/o/${r.group || "core"}/${r.version}/${r.plural}/${ns || "-"}/${encodeURIComponent(meta.name)}`;
    const cells = idx.map((/** @type {number} */ i, /** @type {number} */ n) => h("td", {}, n === 0 ? h("a", { href }, String(row.cells[i])) : cell(row.cells[i])));
    return h("tr", {}, ...(r.namespaced ? [h("td", {}, ns)] : []), ...cells,
      canDelete ? h("td", {}, h("button", { type: "button", class: "danger", "aria-label": `Delete ${meta.name}`,
        onclick: async () => {
          if (!confirm(`Delete ${r.kind} ${meta.name}?`)) return;
          const path = `${collectionPath(r, ns)}/${encodeURIComponent(meta.name)}`;
          await api.request("DELETE", path).catch((err) => alert(err.message));
          await render();
        } }, "Delete")) : null);
  });
  return h("table", { id: "objects" }, h("thead", {}, head), h("tbody", {}, ...body));
}

/** @param {any} v */
function cell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}
