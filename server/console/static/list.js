// A resource's objects: the API's Table with the kind's printer columns,
// filtered by namespace and selectors, kept current by a watch. The
// list is read in pages of pageSize with the API's continue tokens; the
// first page is on screen before the next is asked for, and only the
// rows in view are in the page (virtual.js).

import { collectionPath } from "./api.js";
import { h, replace, errorView } from "./dom.js";
import { virtualTable } from "./virtual.js";

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
  const path = withQuery(collectionPath(r, ns), query);
  // The first page is asked for beside the access reviews, not after
  // them: one round trip less before the first rows.
  /** @type {Promise<any>|undefined} */
  let prefetched = api.table(withLimit(path, ""));
  prefetched.catch(() => {}); // render reports its error
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
  /** @type {AbortController|undefined} */
  let paging;
  const render = async () => {
    if (paging) paging.abort(); // a newer list replaces one still paging
    const mine = paging = new AbortController();
    try {
      let table = await (prefetched || api.table(withLimit(path, "")));
      prefetched = undefined;
      const view = tableView(api, r, table, canDelete, render);
      replace(rows, view.el);
      // For docs/performance.md: when the first rows are on screen.
      if (performance.getEntriesByName("specd-console:rows").length === 0) performance.mark("specd-console:rows");
      const rv = table.metadata.resourceVersion;
      status.textContent = `${view.count()} shown${table.metadata.continue ? ", more loading" : ""}. Live.`;
      while (table.metadata.continue && !mine.signal.aborted && !signal.aborted) {
        table = await api.table(withLimit(path, table.metadata.continue));
        if (mine.signal.aborted) break;
        view.append(table.rows);
        status.textContent = `${view.count()} shown${table.metadata.continue ? ", more loading" : ""}. Live.`;
      }
      if (!table.metadata.continue && performance.getEntriesByName("specd-console:all-rows").length === 0) performance.mark("specd-console:all-rows");
      return rv;
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

/** @param {string} path @param {string} token the continue token of the page before, or "" */
function withLimit(path, token) {
  const more = token ? `&continue=${encodeURIComponent(token)}` : "";
  return `${path}${path.includes("?") ? "&" : "?"}limit=${pageSize}${more}`;
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
 * @returns {import("./virtual.js").VirtualTable} the first page's rows; append adds the next pages'
 */
function tableView(api, r, table, canDelete, render) {
  const cols = table.columnDefinitions.filter((/** @type {any} */ c) => !c.priority);
  const idx = cols.map((/** @type {any} */ c) => table.columnDefinitions.indexOf(c));
  const head = h("tr", {}, ...(r.namespaced ? [h("th", { scope: "col" }, "Namespace")] : []),
    ...cols.map((/** @type {any} */ c) => h("th", { scope: "col", title: c.description || "" }, c.name)),
    canDelete ? h("th", { scope: "col" }, h("span", { class: "hint" }, "Actions")) : null);
  const rowView = (/** @type {any} */ row) => {
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
  };
  return virtualTable({ id: "objects", label: `${r.kind} objects`, head, rows: table.rows, rowView });
}

/** @param {any} v */
function cell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}
