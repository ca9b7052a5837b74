// Building the page's elements. Text from the API is always set as
// text, never parsed as HTML.

/**
 * @param {string} tag
 * @param {Record<string, any>} [attrs] attributes; on* are listeners
 * @param {...(Node|string|null|undefined|false)} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) {
      el.addEventListener(k.slice(2), v);
    } else if (v === true) {
      el.setAttribute(k, "");
    } else {
      el.setAttribute(k, String(v));
    }
  }
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c);
  }
  return el;
}

/**
 * Replaces el's children, leaving out the empty ones as h does.
 * @param {HTMLElement} el @param {...(Node|string|null|undefined|false)} children
 */
export function replace(el, ...children) {
  el.replaceChildren(.../** @type {(Node|string)[]} */ (children.filter((c) => c !== null && c !== undefined && c !== false)));
}

/**
 * An error as the page shows it: the Status message and, for a 422,
 * each field with its message.
 * @param {any} err
 * @returns {HTMLElement}
 */
export function errorView(err) {
  const causes = (err && err.status && err.status.details && err.status.details.causes) || [];
  return h("div", { class: "error", role: "alert" },
    h("p", {}, err && err.code ? `${err.code} ${err.status.reason || ""}: ${err.message}` : String(err)),
    causes.length ? h("ul", { class: "causes" }, ...causes.map((/** @type {{field?: string, message?: string, reason?: string}} */ c) =>
      h("li", { "data-field": c.field || "" }, h("code", {}, c.field || ""), " ", c.message || c.reason || ""))) : null);
}
