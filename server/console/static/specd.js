// What specd itself is doing, from its status.specd.io resources:
// schema files with their problems, reloads and refusals, conversion,
// storage migrations and plugins. Each section follows its resource by
// watch.

import { h, replace, errorView } from "./dom.js";

const base = "/apis/status.specd.io/v1alpha1";

/**
 * @typedef {{plural: string, title: string, render: (items: any[]) => HTMLElement}} Section
 */

/** @type {Section[]} */
const sections = [
  { plural: "schemafiles", title: "Schema files", render: schemaFiles },
  { plural: "schemareloads", title: "Reloads", render: reloads },
  { plural: "conversions", title: "Conversion", render: conversions },
  { plural: "storagemigrations", title: "Storage migrations", render: migrations },
  { plural: "plugins", title: "Plugins", render: plugins },
  { plural: "replicas", title: "Replicas", render: replicas },
  { plural: "etcdmembers", title: "etcd", render: etcdMembers },
];

/**
 * @param {import("./api.js").API} api
 * @param {HTMLElement} view
 * @param {AbortSignal} signal
 */
export function specdView(api, view, signal) {
  replace(view, h("h2", {}, "specd"), ...sections.map((s) => {
    const body = h("div", { id: `specd-${s.plural}` }, h("p", { class: "hint" }, "Loading…"));
    follow(api, s, body, signal);
    return h("section", { "aria-labelledby": `h-${s.plural}` }, h("h3", { id: `h-${s.plural}` }, s.title), body);
  }));
}

/**
 * Lists the section's resource, renders it, and again at each change.
 * @param {import("./api.js").API} api @param {Section} s @param {HTMLElement} body @param {AbortSignal} signal
 */
async function follow(api, s, body, signal) {
  while (!signal.aborted) {
    let rv;
    try {
      const list = await api.get(`${base}/${s.plural}`);
      replace(body, s.render(list.items || []));
      rv = list.metadata.resourceVersion;
    } catch (err) {
      replace(body, /** @type {any} */ (err).code === 403 ? h("p", { class: "hint" }, `You may not read ${s.plural}.`) : errorView(err));
      return;
    }
    try {
      /** @type {number|undefined} */
      let pending;
      await api.watch(`${base}/${s.plural}`, rv, (ev) => {
        if (ev.type === "BOOKMARK") return;
        clearTimeout(pending);
        pending = setTimeout(async () => {
          const list = await api.get(`${base}/${s.plural}`).catch(() => null);
          if (list) replace(body, s.render(list.items || []));
        }, 100);
      }, signal);
    } catch {
      if (signal.aborted) return;
      await new Promise((res) => setTimeout(res, 1000));
    }
  }
}

/**
 * @param {string[]} headers
 * @param {(string|Node)[][]} rows
 * @param {string} empty what an empty table means
 */
function table(headers, rows, empty) {
  if (rows.length === 0) return h("p", { class: "hint" }, empty);
  return h("table", {}, h("thead", {}, h("tr", {}, ...headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, ...rows.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c))))));
}

/** @param {any[]} problems */
function problemList(problems) {
  if (!problems || problems.length === 0) return "";
  return h("ul", { class: "problems" }, ...problems.map((p) => h("li", {},
    p.file ? h("code", {}, p.file) : "", p.pointer ? h("code", { class: "pointer" }, `#${p.pointer}`) : "",
    " ", p.message, p.rule ? h("span", { class: "hint" }, ` (${p.rule})`) : "")));
}

/** @param {any[]} items */
function schemaFiles(items) {
  const sorted = [...items].sort((a, b) => (b.status.problemCount || 0) - (a.status.problemCount || 0) || a.status.path.localeCompare(b.status.path));
  return table(["File", "Phase", "Kinds", "Problems"], sorted.map((f) => [
    h("code", {}, f.status.path), h("span", { class: f.status.phase === "Failed" ? "error" : "ok" }, f.status.phase),
    f.status.kinds || "", problemList(f.status.problems)]), "No schema file.");
}

/** @param {any[]} items */
function reloads(items) {
  const newest = [...items].reverse();
  return table(["Result", "Trigger", "At", "What"], newest.map((r) => [
    h("span", { class: r.status.result === "Applied" ? "ok" : "error" }, r.status.result), r.status.trigger, r.status.at,
    h("div", {}, r.status.message || changes(r.status), problemList(r.status.problems), r.status.hint ? h("p", { class: "hint" }, r.status.hint) : "")]),
  "No reload yet.");
}

/** @param {any} st */
function changes(st) {
  const parts = [];
  if (st.added && st.added.length) parts.push(`added ${st.added.join(", ")}`);
  if (st.changed && st.changed.length) parts.push(`changed ${st.changed.join(", ")}`);
  if (st.removed && st.removed.length) parts.push(`removed ${st.removed.join(", ")}`);
  return parts.join("; ");
}

/** @param {any[]} items */
function conversions(items) {
  return table(["Resource", "Storage", "Versions", "Lossless"], items.map((c) => [
    `${c.status.kind} (${c.status.resource}.${c.status.group})`, c.status.storageVersion,
    h("ul", {}, ...(c.status.versions || []).map((/** @type {any} */ v) => h("li", {}, `${v.version}: `,
      v.rules && v.rules.length ? h("code", {}, JSON.stringify(v.rules)) : h("span", { class: "hint" }, v.storage ? "storage version" : "field for field"),
      v.file ? h("span", { class: "hint" }, ` ${v.file}${v.pointer ? "#" + v.pointer : ""}`) : ""))),
    `${c.status.lossless.result}, ${c.status.lossless.rounds} rounds`]), "No resource is served in more than one version.");
}

/** @param {any[]} items */
function migrations(items) {
  return table(["Resource", "To", "Done", "Failed", "Updated"], items.map((m) => [
    `${m.status.resource}${m.status.group ? "." + m.status.group : ""}`, m.status.storageVersion,
    m.status.done ? "yes" : "no", String(m.status.failed || 0), m.status.updated || ""]), "No storage migration has run.");
}

/** @param {any[]} items */
function plugins(items) {
  return table(["Plugin", "State", "Restarts", "Bindings", "Runs as", "Last error"], items.map((p) => [
    p.metadata.name, p.status.state, String(p.status.restarts),
    h("ul", {}, ...(p.status.bindings || []).map((/** @type {any} */ b) => h("li", {},
      `${b.hook} ${b.resource}.${b.group}/${b.version}${b.failurePolicy ? ` (failurePolicy ${b.failurePolicy})` : ""}`))),
    `${p.status.user} (${p.status.clusterRole})`, p.status.lastError || ""]), "No plugin.");
}

/** @param {any[]} items */
function replicas(items) {
  const sorted = [...items].sort((a, b) => (a.status.role === "Leader" ? -1 : 0) - (b.status.role === "Leader" ? -1 : 0));
  return table(["Replica", "Role", "Host", "Address"], sorted.map((r) => [
    r.status.id, h("span", { class: r.status.role === "Leader" ? "ok" : "" }, r.status.role), r.status.host || "", r.status.address || ""]),
  "No replica in the election.");
}

/** @param {number} n bytes @returns {string} */
function size(n) {
  if (!n) return "";
  const units = ["B", "KiB", "MiB", "GiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return `${n.toFixed(i ? 1 : 0)} ${units[i]}`;
}

/** @param {any[]} items */
function etcdMembers(items) {
  return table(["Member", "Health", "Raft leader", "Version", "Database (in use)", "Alarms or error"], items.map((m) => [
    m.status.name || m.status.id, h("span", { class: m.status.health === "Healthy" ? "ok" : "error" }, m.status.health),
    m.status.leader ? "yes" : "no", m.status.version || "", `${size(m.status.dbSize)} (${size(m.status.dbSizeInUse)})`,
    [...(m.status.alarms || []), m.status.error || ""].filter(Boolean).join("; ")]), "No etcd member.");
}
