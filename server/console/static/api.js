// The client of specd's API: every request the console makes goes
// through here, with the user's bearer token, to this page's origin.

/**
 * A Kubernetes Status, as the API answers an error.
 * @typedef {{kind?: string, code?: number, reason?: string, message?: string,
 *   details?: {causes?: {field?: string, message?: string, reason?: string}[]}}} Status
 */

/** An answer that is not 2xx, with its Status. */
export class APIError extends Error {
  /** @param {number} code @param {Status} status */
  constructor(code, status) {
    super(status.message || `HTTP ${code}`);
    this.code = code;
    this.status = status;
  }
}

/** The media type of the Table output of a list or an object. */
export const tableType = "application/json;as=Table;v=v1;g=meta.k8s.io, application/json";

const tokenKey = "specd-console-token";

/** @returns {string} the token of this tab, or "" */
export function savedToken() {
  return sessionStorage.getItem(tokenKey) || "";
}

/** @param {string} token */
export function saveToken(token) {
  if (token) {
    sessionStorage.setItem(tokenKey, token);
  } else {
    sessionStorage.removeItem(tokenKey);
  }
}

export class API {
  /** @param {string} token the bearer token, or "" to rely on a client certificate */
  constructor(token) {
    this.token = token;
  }

  /**
   * @param {string} method
   * @param {string} path with its query
   * @param {{body?: string, contentType?: string, accept?: string, signal?: AbortSignal}} [opts]
   * @returns {Promise<Response>} a 2xx answer
   */
  async request(method, path, opts = {}) {
    /** @type {Record<string, string>} */
    const headers = { Accept: opts.accept || "application/json" };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (opts.contentType) headers["Content-Type"] = opts.contentType;
    const resp = await fetch(path, { method, headers, body: opts.body, signal: opts.signal, credentials: "same-origin", cache: "no-store" });
    // An expired token (an OIDC id token, a login link's): app.js shows
    // the login again.
    if (resp.status === 401 && this.token) window.dispatchEvent(new Event("specd-unauthorized"));
    if (!resp.ok) {
      /** @type {Status} */
      let status = { message: `HTTP ${resp.status}` };
      try {
        status = await resp.json();
      } catch {
        // not a Status: keep the code
      }
      throw new APIError(resp.status, status);
    }
    return resp;
  }

  /** @param {string} path @returns {Promise<any>} */
  async get(path) {
    return (await this.request("GET", path)).json();
  }

  /** @param {string} path @returns {Promise<any>} the Table of a list or object */
  async table(path) {
    return (await this.request("GET", path, { accept: tableType })).json();
  }

  /**
   * @param {string} path @param {any} body
   * @returns {Promise<any>}
   */
  async create(path, body) {
    return (await this.request("POST", path, { body: JSON.stringify(body), contentType: "application/json" })).json();
  }

  /**
   * Watches path (a list URL with its query, selectors included: the
   * watch is of the same objects) from resourceVersion, calling onEvent
   * for each event until signal aborts or the watch ends; resolves then.
   * @param {string} path
   * @param {string} resourceVersion
   * @param {(ev: {type: string, object: any}) => void} onEvent
   * @param {AbortSignal} signal
   * @param {string} [accept] tableType for events whose objects are Tables
   */
  async watch(path, resourceVersion, onEvent, signal, accept) {
    const sep = path.includes("?") ? "&" : "?";
    const url = `${path}${sep}watch=true&allowWatchBookmarks=true&resourceVersion=${encodeURIComponent(resourceVersion)}`;
    const resp = await this.request("GET", url, { signal, accept });
    if (!resp.body) return;
    const reader = resp.body.pipeThrough(new TextDecoderStream()).getReader();
    let buf = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += value;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line) onEvent(JSON.parse(line));
      }
    }
  }

  /**
   * Whether the user may do verb on resource, from a
   * SelfSubjectAccessReview: the API decides, the page only hides.
   * @param {string} verb @param {string} group @param {string} resource @param {string} [namespace]
   * @returns {Promise<boolean>}
   */
  async can(verb, group, resource, namespace) {
    const review = await this.create("/apis/authorization.k8s.io/v1/selfsubjectaccessreviews", {
      apiVersion: "authorization.k8s.io/v1",
      kind: "SelfSubjectAccessReview",
      spec: { resourceAttributes: { verb, group, resource, namespace: namespace || "" } },
    });
    return Boolean(review.status && review.status.allowed);
  }

  /** @returns {Promise<{username: string, groups: string[]}>} who the API says the user is */
  async whoami() {
    const review = await this.create("/apis/authentication.k8s.io/v1/selfsubjectreviews", {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    const info = (review.status && review.status.userInfo) || {};
    return { username: info.username || "", groups: info.groups || [] };
  }
}

/**
 * The URL of a resource's collection.
 * @param {{group: string, version: string, plural: string, namespaced: boolean}} r
 * @param {string} [namespace] none: across namespaces
 */
export function collectionPath(r, namespace) {
  const base = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  if (r.namespaced && namespace) return `${base}/namespaces/${encodeURIComponent(namespace)}/${r.plural}`;
  return `${base}/${r.plural}`;
}
