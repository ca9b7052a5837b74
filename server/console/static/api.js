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

/**
 * Tells app.js that the API no longer takes the login, and why: it
 * shows the login form again.
 * @param {string} why
 */
export function unauthorized(why) {
  window.dispatchEvent(new CustomEvent("specd-unauthorized", { detail: why }));
}

export class API {
  /**
   * @param {string} token the bearer token, or "" to rely on a client certificate
   * @param {() => Promise<string>} [refresh] trades the login for a new
   *   token (oidc.js, when the issuer gave a refresh token)
   */
  constructor(token, refresh) {
    this.token = token;
    this.refresh = refresh;
    /** @type {Promise<string>|undefined} the refresh under way, which every caller waits for */
    this.refreshing = undefined;
  }

  /**
   * Replaces the token by a refreshed one, once for all the requests
   * that ask at the same time; saves it for the tab.
   * @returns {Promise<string>} the new token
   */
  renew() {
    if (!this.refresh) return Promise.reject(new Error("this login cannot be refreshed"));
    if (!this.refreshing) {
      this.refreshing = this.refresh().then((token) => {
        this.token = token;
        saveToken(token);
        return token;
      }).finally(() => {
        this.refreshing = undefined;
      });
    }
    return this.refreshing;
  }

  /**
   * @param {string} method
   * @param {string} path with its query
   * @param {{body?: string, contentType?: string, accept?: string, signal?: AbortSignal, retried?: boolean}} [opts]
   * @returns {Promise<Response>} a 2xx answer
   */
  async request(method, path, opts = {}) {
    /** @type {Record<string, string>} */
    const headers = { Accept: opts.accept || "application/json" };
    const token = this.token;
    if (token) headers.Authorization = `Bearer ${token}`;
    if (opts.contentType) headers["Content-Type"] = opts.contentType;
    const resp = await fetch(path, { method, headers, body: opts.body, signal: opts.signal, credentials: "same-origin", cache: "no-store" });
    // An expired token (an OIDC id token, a login link's): refreshed
    // and sent again when it can be, else app.js shows the login again.
    let why = "";
    if (resp.status === 401 && token) {
      if (this.refresh && !opts.retried) {
        why = await (token === this.token ? this.renew() : Promise.resolve(this.token)).then(() => "", (err) => `${err.message}: log in again.`);
        if (!why) return this.request(method, path, { ...opts, retried: true });
      } else {
        why = "The API no longer accepts your login (it expired?): log in again.";
      }
      unauthorized(why);
    }
    if (!resp.ok) {
      /** @type {Status} */
      let status = { message: `HTTP ${resp.status}` };
      try {
        status = await resp.json();
      } catch {
        // not a Status: keep the code
      }
      if (why) status.message = why;
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
