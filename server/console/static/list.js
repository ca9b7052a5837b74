// A resource's objects: the API's Table with the kind's printer columns,
// filtered by namespace and selectors, kept current by a watch. The
// list is read in pages of pageSize with the API's continue tokens; the
// first page is on screen before the next is asked for, and only the
// rows in view are in the page (virtual.js).
//
// The watch is a Table watch from the list's resourceVersion, with the
// list's selectors, as a kube client's reflector follows a list: each
// ADDED, MODIFIED or DELETED event changes its row alone, a BOOKMARK moves
// the resourceVersion on, a watch that ends is started again from the
// last resourceVersion seen, and only a 410 Gone (the resourceVersion was
// compacted away) or new columns make the page list again.

import { collectionPath, tableType } from "./api.js";
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
  const prefetched = api.table(withLimit(path, ""));
  prefetched.catch(() => {}); // relist reports its error
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
  const watching = r.verbs.includes("watch");
  const list = new Rows({ api, r, path, canDelete, watching, el: rows, status, signal, first: prefetched });
  const rv = await list.relist();
  if (rv && watching) follow(api, path, rv, list, signal);
}

/**
 * The rows of the list on the page, and how the list is read into them.
 */
class Rows {
  /**
   * @param {{api: import("./api.js").API, r: import("./discovery.js").Resource, path: string, canDelete: boolean,
   *   watching: boolean, el: HTMLElement, status: HTMLElement, signal: AbortSignal, first: Promise<any>}} opts
   *   first is the first page, asked for already
   */
  constructor(opts) {
    this.opts = opts;
    /** @type {Promise<any>|undefined} */
    this.first = opts.first;
    /** @type {import("./virtual.js").VirtualTable|undefined} */
    this.table = undefined;
    /** the names of the table's columns, to tell new ones */
    this.columns = "";
    /** @type {AbortController|undefined} the list being read */
    this.paging = undefined;
  }

  /** Says how many rows there are. @param {boolean} [more] whether pages are still to come */
  changed(more = false) {
    const n = this.table ? this.table.count() : 0;
    this.opts.status.textContent = `${n} shown${more ? ", more loading" : ""}.${this.opts.watching ? " Live." : ""}`;
  }

  /**
   * Reads the list from the start, page by page, into the table.
   * @returns {Promise<string>} the list's resourceVersion, or "" when it failed
   */
  async relist() {
    const { api, path, el } = this.opts;
    if (this.paging) this.paging.abort(); // a newer list replaces one still paging
    const mine = this.paging = new AbortController();
    try {
      const table = await (this.first || api.table(withLimit(path, "")));
      this.first = undefined;
      if (mine.signal.aborted) return "";
      this.show(table);
      // For docs/performance.md: when the first rows are on screen.
      if (performance.getEntriesByName("specd-console:rows").length === 0) performance.mark("specd-console:rows");
      const done = await this.rest(table, mine.signal);
      if (done && performance.getEntriesByName("specd-console:all-rows").length === 0) performance.mark("specd-console:all-rows");
      return done ? table.metadata.resourceVersion : "";
    } catch (err) {
      replace(el, errorView(err));
      this.table = undefined;
      return "";
    }
  }

  /** Shows the first page: in the table shown, unless the columns changed. @param {any} table */
  show(table) {
    const { api, r, canDelete, watching, el } = this.opts;
    if (this.table && columnNames(table) === this.columns) {
      this.table.reset(table.rows); // the same table, scrolled where it was
    } else {
      this.columns = columnNames(table);
      this.table = tableView(api, r, table, canDelete, watching ? () => {} : () => this.relist());
      replace(el, this.table.el);
    }
    this.changed(Boolean(table.metadata.continue));
  }

  /**
   * Reads the pages after table's into the table.
   * @param {any} table @param {AbortSignal} mine aborted by a newer list
   * @returns {Promise<boolean>} whether every page was read
   */
  async rest(table, mine) {
    while (table.metadata.continue) {
      if (mine.aborted || this.opts.signal.aborted) return false;
      table = await this.opts.api.table(withLimit(this.opts.path, table.metadata.continue));
      if (mine.aborted || !this.table) return false;
      this.table.append(table.rows);
      this.changed(Boolean(table.metadata.continue));
    }
    return true;
  }
}

/**
 * Watches path from rv in Table form and puts each event's row in the
 * list's table, until signal aborts.
 * @param {import("./api.js").API} api @param {string} path @param {string} rv
 * @param {Rows} list @param {AbortSignal} signal
 */
async function follow(api, path, rv, list, signal) {
  while (!signal.aborted) {
    const watch = new AbortController();
    const stop = () => watch.abort();
    signal.addEventListener("abort", stop, { once: true });
    let again = false, failed = false;
    try {
      await api.watch(path, rv, (ev) => {
        if (again) return;
        if (ev.type === "ERROR") {
          // A 410: the resourceVersion is too old to watch from.
          again = ev.object && ev.object.code === 410;
          failed = !again;
          return;
        }
        const table = ev.object || {};
        if (table.columnDefinitions && columnNames(table) !== list.columns) {
          again = true; // the kind's columns changed: the rows need them all
          watch.abort();
          return;
        }
        if (table.metadata && table.metadata.resourceVersion) rv = table.metadata.resourceVersion;
        if (ev.type !== "BOOKMARK") put(list, ev.type, table.rows || []);
      }, watch.signal, tableType);
    } catch (err) {
      if (signal.aborted) return;
      if (/** @type {any} */ (err).code === 410) again = true;
      else if (!again) failed = true;
    } finally {
      signal.removeEventListener("abort", stop);
    }
    if (signal.aborted) return;
    if (again) {
      const fresh = await list.relist();
      if (fresh) rv = fresh;
      else failed = true;
    }
    if (failed) await new Promise((res) => setTimeout(res, 1000));
  }
}

/**
 * Puts the rows of an ADDED, MODIFIED or DELETED event in the table, or
 * takes them out.
 * @param {Rows} list @param {string} type @param {any[]} rows
 */
function put(list, type, rows) {
  if (!list.table) return;
  for (const row of rows) {
    if (type === "DELETED") list.table.remove(rowKey(row));
    else list.table.put(row);
  }
  list.changed();
}

/** @param {any} row a Table row @returns {string} its key: namespace/name, the order the API lists in */
function rowKey(row) {
  const meta = (row.object && row.object.metadata) || {};
  return `${meta.namespace || ""}/${meta.name}`;
}

/** @param {any} table @returns {string} the names of its columns, to compare */
function columnNames(table) {
  return (table.columnDefinitions || []).map((/** @type {any} */ c) => c.name).join("\n");
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
 * @param {() => any} deleted after a delete: nothing when the watch shows it
 * @returns {import("./virtual.js").VirtualTable} the first page's rows; append adds the next pages'
 */
function tableView(api, r, table, canDelete, deleted) {
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
          await deleted();
        } }, "Delete")) : null);
  };
  return virtualTable({ id: "objects", label: `${r.kind} objects`, head, rows: table.rows, rowView, key: rowKey });
}

/** @param {any} v */
function cell(v) {
  if (v === null || v === undefined) return "";
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}
