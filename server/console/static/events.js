// An object's Events: core/v1 Events whose involvedObject is the object,
// selected by the API (fieldSelector involvedObject.*, as kubectl
// describe selects them), newest first, followed by watch.

import { h, replace, errorView } from "./dom.js";

/**
 * @param {import("./api.js").API} api
 * @param {any} obj the object, as the API answered it
 * @param {string} kind its kind
 * @param {HTMLElement} out where the events go
 * @param {AbortSignal} signal ends the watch when the view changes
 */
export async function eventsView(api, obj, kind, out, signal) {
  const m = obj.metadata || {};
  // Events of a cluster-scoped object are in "default", as kube puts them.
  const ns = m.namespace || "default";
  const selector = [`involvedObject.kind=${kind}`, `involvedObject.name=${m.name}`,
    `involvedObject.namespace=${m.namespace || ""}`, `involvedObject.uid=${m.uid}`].join(",");
  const path = `/api/v1/namespaces/${encodeURIComponent(ns)}/events?fieldSelector=${encodeURIComponent(selector)}`;
  const show = async () => {
    const list = await api.get(path);
    replace(out, h("h3", { id: "events-title" }, "Events"), eventTable(list.items || []));
    return list.metadata.resourceVersion;
  };
  let rv;
  try {
    rv = await show();
  } catch (err) {
    const e = /** @type {any} */ (err);
    replace(out, h("h3", {}, "Events"), e.code === 403 ? h("p", { class: "hint" }, "You may not read Events here.") : errorView(err));
    return;
  }
  /** @type {number|undefined} */
  let pending;
  await api.watch(path, rv, (ev) => {
    if (ev.type === "BOOKMARK") return;
    clearTimeout(pending);
    pending = setTimeout(() => show().catch(() => {}), 100);
  }, signal).catch(() => {});
}

/** @param {any[]} items */
function eventTable(items) {
  if (items.length === 0) return h("p", { class: "hint", id: "events" }, "No events.");
  const last = (/** @type {any} */ e) => e.lastTimestamp || e.eventTime || (e.metadata && e.metadata.creationTimestamp) || "";
  const sorted = [...items].sort((a, b) => last(b).localeCompare(last(a)));
  return h("table", { id: "events", "aria-labelledby": "events-title" },
    h("thead", {}, h("tr", {}, ...["Type", "Reason", "Last seen", "Count", "From", "Message"].map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...sorted.map((e) => h("tr", {},
      h("td", {}, e.type || ""), h("td", {}, e.reason || ""), h("td", {}, last(e)), h("td", {}, String(e.count || 1)),
      h("td", {}, (e.source && e.source.component) || e.reportingComponent || ""), h("td", {}, e.message || "")))));
}
