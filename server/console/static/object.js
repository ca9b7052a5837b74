// One object: its YAML (managedFields and status hidden unless asked),
// and an editor that validates by a dry run, shows the diff and applies
// with server-side apply.

import { collectionPath } from "./api.js";
import { h, replace, errorView } from "./dom.js";
import { toYAML, diffLines } from "./yaml.js";
import { eventsView } from "./events.js";

/** The field manager of the console's server-side applies. */
const fieldManager = "specd-console";

/**
 * @param {any} obj
 * @param {boolean} all keep managedFields and status
 */
function shown(obj, all) {
  if (all) return obj;
  const copy = structuredClone(obj);
  if (copy.metadata) delete copy.metadata.managedFields;
  delete copy.status;
  return copy;
}

/**
 * @param {import("./api.js").API} api
 * @param {import("./discovery.js").Resource} r
 * @param {string} ns "" for a cluster-scoped object
 * @param {string} name
 * @param {HTMLElement} view
 * @param {string[]} versions the versions its group serves
 * @param {AbortSignal} signal ends the Events' watch when the view changes
 */
export async function objectView(api, r, ns, name, view, versions, signal) {
  const path = `${collectionPath(r, ns)}/${encodeURIComponent(name)}`;
  let obj;
  try {
    obj = await api.get(path);
  } catch (err) {
    replace(view, errorView(err));
    return;
  }
  const canUpdate = r.verbs.includes("patch") && await api.can("patch", r.group, r.plural, ns).catch(() => false);
  const pre = h("pre", { id: "yaml", tabindex: "0", "aria-label": `${r.kind} ${name} as YAML` }, toYAML(shown(obj, false)));
  const toggle = h("input", { type: "checkbox", id: "show-all", onchange: (/** @type {Event} */ e) => {
    pre.textContent = toYAML(shown(obj, /** @type {HTMLInputElement} */ (e.target).checked));
  } });
  const editor = h("div", { id: "editor" });
  replace(view,
    h("h2", {}, `${r.kind} ${name}`, ns ? h("span", { class: "hint" }, ` in ${ns}`) : null),
    h("p", {}, toggle, h("label", { for: "show-all" }, " Show managedFields and status")),
    canUpdate ? h("p", {}, h("button", { type: "button", id: "edit", onclick: () => edit(api, path, obj, editor) }, "Edit")) : null,
    pre, editor, h("div", { id: "versions" }), h("section", { id: "object-events", "aria-label": "Events" }));
  eventsView(api, obj, r.kind, /** @type {HTMLElement} */ (view.querySelector("#object-events")), signal);
  if (versions.length > 1) inVersions(api, r, ns, name, versions, /** @type {HTMLElement} */ (view.querySelector("#versions")));
}

/**
 * The object in every version its group serves, side by side: specd
 * converts it from the storage version by the kind's rules
 * (status.specd.io Conversion says which).
 * @param {import("./api.js").API} api @param {import("./discovery.js").Resource} r
 * @param {string} ns @param {string} name @param {string[]} versions @param {HTMLElement} out
 */
async function inVersions(api, r, ns, name, versions, out) {
  const shownIn = await Promise.all(versions.map(async (version) => {
    try {
      const obj = await api.get(`${collectionPath({ ...r, version }, ns)}/${encodeURIComponent(name)}`);
      return { version, obj };
    } catch {
      return null; // the kind is not served in this version
    }
  }));
  const found = shownIn.filter((x) => x !== null);
  if (found.length < 2) return;
  replace(out, h("h3", {}, "In every served version"),
    h("p", { class: "hint" }, "One stored object, converted by the rules of the kind's Conversion (specd status)."),
    h("div", { class: "side-by-side" }, ...found.map((x) => h("section", { "aria-label": `In ${x.version}` },
      h("h4", {}, /** @type {{version: string}} */ (x).version),
      h("pre", { tabindex: "0" }, toYAML(shown(/** @type {{obj: any}} */ (x).obj, false)))))));
}

/**
 * The editor: the object's YAML without what the server owns, checked by
 * a dry run, then applied.
 * @param {import("./api.js").API} api @param {string} path @param {any} obj @param {HTMLElement} editor
 */
function edit(api, path, obj, editor) {
  const mine = shown(obj, false);
  delete mine.metadata.resourceVersion;
  delete mine.metadata.uid;
  delete mine.metadata.creationTimestamp;
  delete mine.metadata.generation;
  const before = toYAML(shown(obj, false));
  const text = h("textarea", { id: "edit-text", "aria-label": "Object YAML", spellcheck: "false" }, toYAML(mine));
  const out = h("div", { id: "edit-result", "aria-live": "polite" });
  /** @param {boolean} dry */
  const apply = async (dry) => {
    const q = `?fieldManager=${fieldManager}&fieldValidation=Strict&force=true${dry ? "&dryRun=All" : ""}`;
    try {
      const resp = await api.request("PATCH", path + q, { body: /** @type {HTMLTextAreaElement} */ (text).value, contentType: "application/apply-patch+yaml" });
      const after = await resp.json();
      if (dry) {
        replace(out, h("p", { class: "ok" }, "Valid. Changes:"), diffView(before, toYAML(shown(after, false))),
          h("button", { type: "button", id: "apply", onclick: () => apply(false) }, "Apply"));
      } else {
        replace(out, h("p", { class: "ok" }, `Applied: resourceVersion ${after.metadata.resourceVersion}.`));
      }
    } catch (err) {
      replace(out, errorView(err));
    }
  };
  replace(editor, text, h("p", {}, h("button", { type: "button", id: "validate", onclick: () => apply(true) }, "Validate and show the diff")), out);
}

/** @param {string} a @param {string} b */
export function diffView(a, b) {
  const lines = diffLines(a, b).filter(([op]) => op !== " ");
  if (lines.length === 0) return h("p", { class: "hint" }, "No change.");
  return h("pre", { class: "diff", "aria-label": "Diff" }, ...lines.map(([op, line]) =>
    h("span", { class: op === "+" ? "add" : "del" }, `${op} ${line}\n`)));
}

/**
 * A new object from YAML: sent as YAML (the server parses it), checked
 * by a dry run first.
 * @param {import("./api.js").API} api
 * @param {import("./discovery.js").Resource} r
 * @param {string} ns
 * @param {HTMLElement} view
 */
export function createView(api, r, ns, view) {
  const apiVersion = r.group ? `${r.group}/${r.version}` : r.version;
  const template = `apiVersion: ${apiVersion}\nkind: ${r.kind}\nmetadata:\n  name: \n${r.namespaced ? `  namespace: ${ns}\n` : ""}spec: {}\n`;
  const text = h("textarea", { id: "create-text", "aria-label": `New ${r.kind} as YAML`, spellcheck: "false" }, template);
  const out = h("div", { id: "create-result", "aria-live": "polite" });
  const path = collectionPath(r, r.namespaced ? ns : "");
  /** @param {boolean} dry */
  const send = async (dry) => {
    try {
      const resp = await api.request("POST", `${path}?fieldManager=${fieldManager}&fieldValidation=Strict${dry ? "&dryRun=All" : ""}`,
        { body: /** @type {HTMLTextAreaElement} */ (text).value, contentType: "application/yaml" });
      const created = await resp.json();
      if (dry) {
        replace(out, h("p", { class: "ok" }, "Valid."), h("pre", {}, toYAML(shown(created, false))),
          h("button", { type: "button", id: "create-apply", onclick: () => send(false) }, "Create"));
      } else {
        const m = created.metadata;
        location.hash = `#/o/${r.group || "core"}/${r.version}/${r.plural}/${m.namespace || "-"}/${encodeURIComponent(m.name)}`;
      }
    } catch (err) {
      replace(out, errorView(err));
    }
  };
  replace(view, h("h2", {}, `New ${r.kind}`), text,
    h("p", {}, h("button", { type: "button", id: "create-validate", onclick: () => send(true) }, "Validate")), out);
}
