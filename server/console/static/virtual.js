// A table that puts in the page only the rows in view, and spacers for
// the rest: ten thousand rows cost what fifty do. Rows have one height
// (console.css, .virtual td), which is what makes the window computable.

import { h } from "./dom.js";

/** The height of a row in px until one drawn is measured (console.css's .virtual td). */
const rowHeightGuess = 33;

/** Rows drawn above and below the ones in view, for smooth scrolling. */
const overscan = 20;

/**
 * @typedef {{el: HTMLElement, append: (rows: any[]) => void, count: () => number}} VirtualTable
 */

/**
 * @param {{id: string, label: string, head: HTMLElement, rows: any[], rowView: (row: any) => HTMLElement}} opts
 * @returns {VirtualTable}
 */
export function virtualTable({ id, label, head, rows, rowView }) {
  const all = [...rows];
  const body = h("tbody");
  const table = h("table", { id, class: "virtual", "aria-label": label }, h("thead", {}, head), body);
  const scroller = h("div", { class: "scroller", tabindex: "0", role: "region", "aria-label": `${label}, scrollable` }, table);
  let queued = false;
  let rowHeight = rowHeightGuess;
  /** @param {number} n rows not drawn @returns {HTMLElement|string} a row as high as they would be */
  const spacer = (n) => {
    if (n <= 0) return "";
    const tr = h("tr", { "aria-hidden": "true", class: "spacer" });
    tr.style.height = `${n * rowHeight}px`;
    return tr;
  };
  const draw = () => {
    queued = false;
    const height = scroller.clientHeight || window.innerHeight;
    const first = Math.max(0, Math.floor(scroller.scrollTop / rowHeight) - overscan);
    const last = Math.min(all.length, Math.ceil((scroller.scrollTop + height) / rowHeight) + overscan);
    table.setAttribute("aria-rowcount", String(all.length + 1));
    const drawn = all.slice(first, last).map((row, i) => {
      const tr = rowView(row);
      tr.setAttribute("aria-rowindex", String(first + i + 2)); // the header is row 1
      return tr;
    });
    body.replaceChildren(spacer(first), ...drawn, spacer(all.length - last));
    if (drawn.length && drawn[0].offsetHeight && drawn[0].offsetHeight !== rowHeight) {
      rowHeight = drawn[0].offsetHeight;
      queue();
    }
  };
  const queue = () => {
    if (!queued) requestAnimationFrame(draw);
    queued = true;
  };
  scroller.addEventListener("scroll", queue);
  draw();
  return {
    el: scroller,
    append(more) {
      all.push(...more);
      queue();
    },
    count: () => all.length,
  };
}
