// A table that puts in the page only the rows in view, and spacers for
// the rest: ten thousand rows cost what fifty do. Rows have one height
// (console.css, .virtual td), which is what makes the window computable.
//
// The rows are kept in the order of their keys, the order the API lists
// them in (namespace, then name), so that a watch event finds its row by
// binary search and changes that row alone: a row's element is made once
// per version of the row, and the rows that did not change keep theirs.

import { h } from "./dom.js";

/** The height of a row in px until one drawn is measured (console.css's .virtual td). */
const rowHeightGuess = 33;

/** Rows drawn above and below the ones in view, for smooth scrolling. */
const overscan = 20;

/**
 * @typedef {{el: HTMLElement, append: (rows: any[]) => void, put: (row: any) => void,
 *   remove: (key: string) => void, reset: (rows: any[]) => void, count: () => number}} VirtualTable
 */

/**
 * @param {{id: string, label: string, head: HTMLElement, rows: any[], rowView: (row: any) => HTMLElement,
 *   key: (row: any) => string}} opts
 * @returns {VirtualTable}
 */
export function virtualTable({ id, label, head, rows, rowView, key }) {
  let all = [...rows];
  /** @type {WeakMap<any, HTMLElement>} each row's element, while the row is this version */
  let drawnRows = new WeakMap();
  const top = spacerRow(), bottom = spacerRow();
  const body = h("tbody", {}, top, bottom);
  const table = h("table", { id, class: "virtual", "aria-label": label }, h("thead", {}, head), body);
  const scroller = h("div", { class: "scroller", tabindex: "0", role: "region", "aria-label": `${label}, scrollable` }, table);
  let queued = false;
  let rowHeight = rowHeightGuess;
  /** @param {any} row */
  const element = (row) => {
    let tr = drawnRows.get(row);
    if (!tr) {
      tr = rowView(row);
      tr.dataset.key = key(row);
      drawnRows.set(row, tr);
    }
    return tr;
  };
  const draw = () => {
    queued = false;
    const height = scroller.clientHeight || window.innerHeight;
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - overscan);
    const last = Math.min(all.length, Math.ceil((scroller.scrollTop + height) / rowHeight) + overscan);
    table.setAttribute("aria-rowcount", String(all.length + 1));
    const drawn = all.slice(first, last).map((row, i) => {
      const tr = element(row);
      tr.setAttribute("aria-rowindex", String(first + i + 2)); // the header is row 1
      return tr;
    });
    top.style.height = `${first * rowHeight}px`;
    bottom.style.height = `${(all.length - last) * rowHeight}px`;
    reconcile(body, [top, ...drawn, bottom]);
    if (drawn.length && drawn[0].offsetHeight && drawn[0].offsetHeight !== rowHeight) {
      rowHeight = drawn[0].offsetHeight;
      queue();
    }
  };
  const queue = () => {
    if (!queued) requestAnimationFrame(draw);
    queued = true;
  };
  /** @param {string} k @returns {[number, boolean]} where the row of key k is, or would go, and whether it is there */
  const find = (k) => {
    let lo = 0, hi = all.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (key(all[mid]) < k) lo = mid + 1;
      else hi = mid;
    }
    return [lo, lo < all.length && key(all[lo]) === k];
  };
  scroller.addEventListener("scroll", queue);
  draw();
  return {
    el: scroller,
    append(more) {
      all.push(...more);
      queue();
    },
    put(row) {
      const [i, found] = find(key(row));
      all.splice(i, found ? 1 : 0, row);
      queue();
    },
    remove(k) {
      const [i, found] = find(k);
      if (found) all.splice(i, 1);
      queue();
    },
    reset(rows) {
      all = [...rows];
      drawnRows = new WeakMap();
      queue();
    },
    count: () => all.length,
  };
}

/** @returns {HTMLElement} a row as high as the rows not drawn, set by draw */
function spacerRow() {
  return h("tr", { "aria-hidden": "true", class: "spacer" });
}

/**
 * Makes body's children want, moving only what moved: an element that
 * stays in the page stays the same element, with its focus.
 * @param {HTMLElement} body @param {HTMLElement[]} want
 */
function reconcile(body, want) {
  let at = body.firstElementChild;
  for (const el of want) {
    if (el === at) {
      at = at.nextElementSibling;
      continue;
    }
    body.insertBefore(el, at);
  }
  while (at) {
    const next = at.nextElementSibling;
    at.remove();
    at = next;
  }
}
