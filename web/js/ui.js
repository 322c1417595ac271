// Small DOM helpers every screen uses: find, build, lists with their empty state, and the
// messages: the status bar (the connection, errors), toasts (achievements, levels, challenges)
// and the notes under a screen's controls.
import { icon as drawIcon } from "./icons.js";

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  // Strings become text nodes: what players wrote never goes in as HTML.
  for (const c of children) if (c !== null && c !== undefined && c !== false) node.append(c);
  return node;
}

/**
 * Fills a list box: a list of `items` (an <ol> when `ordered`), or, with none, a paragraph that
 * says what to do. An empty state is a sentence, not a numbered list item.
 * @param {HTMLElement} box  a container (class list-box)
 * @param {HTMLElement[]} items  <li> elements
 * @param {{ordered?: boolean, empty: string, listClass?: string}} options
 */
export function fillList(box, items, { ordered = false, empty, listClass = "list" }) {
  if (!items.length) {
    box.replaceChildren(el("p", { class: "empty" }, empty));
    return null;
  }
  const list = el(ordered ? "ol" : "ul", { class: listClass }, ...items);
  box.replaceChildren(list);
  return list;
}

export function status(text) {
  $("status").hidden = !text;
  $("status").textContent = text || "";
}

// A passing notice in the status bar: cleared after 3 s unless something else took the bar meanwhile.
export function flash(text) {
  status(text);
  setTimeout(() => { if ($("status").textContent === text) status(""); }, 3000);
}

/**
 * A toast of its own (an achievement, a level, a challenge): stacked between the header and the
 * screen (in a game: over its foot; style.css says why), gone after a few seconds, never taking a tap. Kept apart from the status bar, which says "Reconnecting…".
 * @param {string} text
 * @param {{kind?: string, icon?: string}} [options]  kind: achievement, level, challenge, info;
 *   icon: a name from icons.js (drawn as SVG: an emoji may be missing from the system's fonts)
 */
export function toast(text, { kind = "info", icon = "" } = {}) {
  const node = el("div", { class: `toast toast-${kind}` },
    icon ? drawIcon(icon, "icon toast-icon") : null, el("span", {}, text));
  const remove = () => node.remove();
  $("toasts").append(node);
  while ($("toasts").children.length > 3) $("toasts").firstElementChild.remove();
  setTimeout(remove, 5000);
}

// A short message under a screen's controls (an empty one takes no room).
export function note(id, text) {
  $(id).textContent = text || "";
}

/** Black or white text, whichever reads better on `hex` (a server-chosen badge colour). */
export function textOn(hex) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex ?? "");
  if (!m) return "#fff";
  const lin = (c) => { const v = parseInt(c, 16) / 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const l = 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
  // Contrast with white (1.05 / (l + .05)) against black ((l + .05) / .05): the larger wins.
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.05 ? "#fff" : "#111";
}
