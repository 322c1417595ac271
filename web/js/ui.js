// Small DOM helpers every screen uses: find, build, and the status bar's and notes' messages.

export const $ = (id) => document.getElementById(id);

export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
  }
  // Strings become text nodes: what players wrote never goes in as HTML.
  for (const c of children) node.append(c);
  return node;
}

export function status(text) {
  $("status").hidden = !text;
  $("status").textContent = text || "";
}

// A passing notice: cleared after 3 s unless something else took the bar meanwhile.
export function flash(text) {
  status(text);
  setTimeout(() => { if ($("status").textContent === text) status(""); }, 3000);
}

// A short message under a screen's controls (an empty one takes no room).
export function note(id, text) {
  $(id).textContent = text || "";
}
