// The API's groups, versions and resources, from discovery.

/**
 * @typedef {{group: string, version: string, plural: string, kind: string,
 *   namespaced: boolean, verbs: string[]}} Resource
 * @typedef {{name: string, preferred: string, versions: string[], resources: Resource[]}} Group
 */

/**
 * @param {import("./api.js").API} api
 * @returns {Promise<Group[]>} the core group first, then the others by name
 */
export async function discover(api) {
  const list = await api.get("/apis");
  /** @type {Group[]} */
  const groups = [{ name: "", preferred: "v1", versions: ["v1"], resources: [] }];
  for (const g of list.groups || []) {
    groups.push({ name: g.name, preferred: g.preferredVersion.version, versions: g.versions.map((/** @type {any} */ v) => v.version), resources: [] });
  }
  groups.sort((a, b) => a.name.localeCompare(b.name));
  await Promise.all(groups.map(async (g) => {
    const path = g.name ? `/apis/${g.name}/${g.preferred}` : "/api/v1";
    const rl = await api.get(path);
    g.resources = (rl.resources || [])
      .filter((/** @type {any} */ r) => !r.name.includes("/") && (r.verbs || []).includes("list"))
      .map((/** @type {any} */ r) => ({ group: g.name, version: g.preferred, plural: r.name, kind: r.kind, namespaced: r.namespaced, verbs: r.verbs }))
      .sort((/** @type {Resource} */ a, /** @type {Resource} */ b) => a.kind.localeCompare(b.kind));
  }));
  return groups;
}

/**
 * @param {Group[]} groups @param {string} group @param {string} plural
 * @returns {Resource|undefined}
 */
export function findResource(groups, group, plural) {
  const g = groups.find((x) => x.name === group);
  return g && g.resources.find((r) => r.plural === plural);
}
