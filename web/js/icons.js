// Small line icons drawn as inline SVG, in the colour of the text around them. Emoji (🏆, ⭐,
// 🎯, 🔒) are missing from many system fonts (headless Chromium on Linux has none), and a
// missing glyph shows as an empty box; a path shows everywhere.
const SVG = "http://www.w3.org/2000/svg";

/** Each icon: the `d` of its paths on a 24 × 24 grid, stroked 2 wide. */
const PATHS = {
  trophy: ["M7 4h10v5a5 5 0 0 1-10 0z", "M7 6H4v1a3 3 0 0 0 3 3M17 6h3v1a3 3 0 0 1-3 3", "M12 14v4M8 21h8M9.5 21l.5-3h4l.5 3"],
  star: ["M12 3l2.7 5.6 6.1.8-4.5 4.2 1.1 6.1L12 16.8l-5.4 2.9 1.1-6.1-4.5-4.2 6.1-.8z"],
  target: ["M12 3a9 9 0 1 0 0 18a9 9 0 1 0 0-18z", "M12 8a4 4 0 1 0 0 8a4 4 0 1 0 0-8z", "M12 11.5v1"],
  swords: ["M4 4l9 9M4 4h4M4 4v4", "M20 4l-9 9M20 4h-4M20 4v4", "M7 14l3 3M5 19l3-3M17 14l-3 3M19 19l-3-3"],
  lock: ["M6 11h12v9H6z", "M8.5 11V8a3.5 3.5 0 0 1 7 0v3", "M12 15v2"],
  play: ["M8 5v14l11-7z"],
  bolt: ["M13 3L5 13h6l-1 8 8-10h-6z"],
  // A recorded opponent: a replay arrow round a play mark (a recording, not a person).
  replay: ["M4 12a8 8 0 1 0 2.3-5.7", "M4 4v4h4", "M10.5 9.5v5l4-2.5z"],
  bell: ["M6 16V11a6 6 0 0 1 12 0v5l2 2H4z", "M10 20a2 2 0 0 0 4 0"],
  note: ["M5 4h10l4 4v12H5z", "M15 4v4h4", "M8 12h8M8 16h6"],
};

/**
 * An icon `name` as an <svg> that assistive technology skips (the text beside it says it all).
 * @param {string} name  a key of PATHS
 * @param {string} [className]
 */
export function icon(name, className = "icon") {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("class", className);
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  for (const d of PATHS[name] ?? []) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    path.setAttribute("fill", "none");
    path.setAttribute("stroke", "currentColor");
    path.setAttribute("stroke-width", "2");
    path.setAttribute("stroke-linecap", "round");
    path.setAttribute("stroke-linejoin", "round");
    svg.append(path);
  }
  return svg;
}
