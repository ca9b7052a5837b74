// YAML of a JSON value, for showing objects as kubectl does. Only the
// output side: edits are sent as YAML and the server parses them.

const plain = /^[A-Za-z_/][A-Za-z0-9_./:-]*$/;
const reserved = /^(true|false|null|yes|no|on|off|~|-?[0-9][0-9_.eE+-]*)$/i;

/** @param {string} s @returns {string} s as a YAML scalar */
function scalar(s) {
  if (s !== "" && plain.test(s) && !reserved.test(s)) return s;
  return JSON.stringify(s);
}

/**
 * @param {any} v
 * @param {string} [indent]
 * @returns {string} v as YAML, ending in a newline
 */
export function toYAML(v, indent = "") {
  if (Array.isArray(v)) {
    if (v.length === 0) return `${indent}[]\n`;
    return v.map((item) => {
      const body = toYAML(item, indent + "  ");
      return `${indent}- ${body.slice(indent.length + 2)}`;
    }).join("");
  }
  if (v !== null && typeof v === "object") {
    const keys = Object.keys(v);
    if (keys.length === 0) return `${indent}{}\n`;
    return keys.map((k) => {
      const val = v[k];
      const key = `${indent}${scalar(k)}:`;
      if (val !== null && typeof val === "object" && (Array.isArray(val) ? val.length : Object.keys(val).length)) {
        const childIndent = Array.isArray(val) ? indent : indent + "  ";
        return `${key}\n${toYAML(val, childIndent)}`;
      }
      return `${key} ${toYAML(val, "").trimEnd()}\n`;
    }).join("");
  }
  if (typeof v === "string") return `${indent}${v.includes("\n") ? JSON.stringify(v) : scalar(v)}\n`;
  return `${indent}${JSON.stringify(v)}\n`;
}

/**
 * A line diff of a and b, as [op, line] pairs: " " kept, "-" removed,
 * "+" added (longest common subsequence; objects are small).
 * @param {string} a @param {string} b
 * @returns {[string, string][]}
 */
export function diffLines(a, b) {
  const x = a.split("\n"), y = b.split("\n");
  const n = x.length, m = y.length;
  const lcs = Array.from({ length: n + 1 }, () => new Array(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i][j] = x[i] === y[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  /** @type {[string, string][]} */
  const out = [];
  let i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) {
      out.push([" ", x[i]]); i++; j++;
    } else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push(["+", y[j]]); j++;
    } else {
      out.push(["-", x[i]]); i++;
    }
  }
  return out;
}
