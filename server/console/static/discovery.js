// The API's groups, versions and resources, from aggregated discovery.

/**
 * @typedef {{group: string, version: string, plural: string, kind: string,
 *   namespaced: boolean, verbs: string[]}} Resource
 * @typedef {{name: string, preferred: string, versions: string[], resources: Resource[]}} Group
 */

/** The aggregated discovery document (apidiscovery.k8s.io/v2), as kubectl asks for it. */
const aggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList, application/json";

/**
 * Every group, its versions and the resources of its preferred version,
 * from the aggregated discovery of /api and /apis: two requests, however
 * many groups are served.
 * @param {import("./api.js").API} api
 * @returns {Promise<Group[]>} the core group first, then the others by name
 */
export async function discover(api) {
  const lists = await Promise.all(["/api", "/apis"].map(async (path) =>
    (await api.request("GET", path, { accept: aggregated })).json()));
  /** @type {Group[]} */
  const groups = [];
  for (const list of lists) {
    for (const g of list.items || []) {
      const versions = g.versions || [];
      if (versions.length === 0) continue;
      const preferred = versions[0]; // listed first, as kube lists it
      const name = (g.metadata && g.metadata.name) || "";
      groups.push({
        name, preferred: preferred.version, versions: versions.map((/** @type {any} */ v) => v.version),
        resources: (preferred.resources || [])
          .filter((/** @type {any} */ r) => (r.verbs || []).includes("list"))
          .map((/** @type {any} */ r) => ({ group: name, version: preferred.version, plural: r.resource,
            kind: (r.responseKind && r.responseKind.kind) || r.resource, namespaced: r.scope === "Namespaced", verbs: r.verbs }))
          .sort((/** @type {Resource} */ a, /** @type {Resource} */ b) => a.kind.localeCompare(b.kind)),
      });
    }
  }
  groups.sort((a, b) => a.name.localeCompare(b.name));
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
