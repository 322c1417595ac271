// Motion and sound for what happens in a game (right, wrong, locked out, points), each played
// once per moment: the game screen is redrawn on every event and reply, so an effect is keyed
// ("duel:question:what") and a redraw does not replay it. The animations are CSS (style.css),
// and `prefers-reduced-motion: reduce` turns them off there.
import { play } from "./sound.js";

const done = new Set();

/** Runs `effect` the first time `key` is seen; returns whether it ran. */
export function once(key, effect) {
  if (done.has(key)) return false;
  done.add(key);
  if (done.size > 500) done.delete(done.values().next().value);
  effect();
  return true;
}

/** Restarts CSS animation class `name` on `node` (removed again when it ends). */
export function animate(node, name) {
  if (!node) return;
  node.classList.remove(name);
  void node.offsetWidth; // a reflow, so that adding the class again starts the animation anew
  node.classList.add(name);
  node.addEventListener("animationend", () => node.classList.remove(name), { once: true });
}

/** "+160" floating up from my score. */
export function popPoints(node, text) {
  node.textContent = text;
  animate(node, "float-up");
}

export { play };
