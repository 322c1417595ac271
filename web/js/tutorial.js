// A three-step tour for a newcomer: how to start a duel, how a question is won, where progress
// shows. Shown once per browser, the first time the home screen opens after a sign-up or sign-in
// (a tour about the home screen, so not over a room lobby a shared link opened first), and
// again from Profile on request. Client-only: all it keeps is one localStorage key.
//
// A modal <dialog> (showModal): the page behind is inert, so Tab never reaches it; Escape, Skip
// and the last step's button all close it, and each counts as seen. Focus starts on Next (Enter
// walks the tour) and goes back where it was when the tour closes.
import { $ } from "./ui.js";
import { t, onLanguage } from "./i18n.js";
import { icon } from "./icons.js";

const SEEN = "quizduel.tutorial";
const STEPS = [
  { icon: "play", title: "tutorial.pick.title", text: "tutorial.pick.text" },
  { icon: "bolt", title: "tutorial.race.title", text: "tutorial.race.text" },
  { icon: "star", title: "tutorial.grow.title", text: "tutorial.grow.text" },
];

let step = 0;
/** @type {Element | null} where the focus was when the tour opened */
let returnTo = null;

function seen() {
  try { return localStorage.getItem(SEEN) === "seen"; } catch { return true; } // storage off: never nag
}

/** Opens the tour at its first step. */
export function openTutorial() {
  const dialog = /** @type {HTMLDialogElement} */ ($("tutorial"));
  if (dialog.open) return;
  returnTo = document.activeElement;
  step = 0;
  render();
  dialog.showModal();
  $("tutorial-next").focus();
}

/** The tour, if this browser has not seen it yet (the home screen calls this). */
export function tutorialOnce() {
  if (!seen()) openTutorial();
}

function render() {
  const s = STEPS[step];
  const last = step === STEPS.length - 1;
  $("tutorial-art").replaceChildren(icon(s.icon, "tutorial-icon"));
  $("tutorial-count").textContent = t("tutorial.step", { n: step + 1, count: STEPS.length });
  $("tutorial-title").textContent = t(s.title);
  $("tutorial-text").textContent = t(s.text);
  $("tutorial-next").textContent = t(last ? "tutorial.done" : "tutorial.next");
  [...$("tutorial-dots").children].forEach((dot, i) => dot.classList.toggle("on", i === step));
  const back = $("tutorial-back");
  // Back is hidden on the first step: if it had the focus, Next takes it (else it falls to the body).
  if (step === 0 && document.activeElement === back) $("tutorial-next").focus();
  back.hidden = step === 0;
}

function go(next) {
  step = Math.max(0, Math.min(STEPS.length - 1, next));
  render();
  $("tutorial-body").classList.remove("step-in");
  void $("tutorial-body").offsetWidth; // a reflow, so that the animation starts again
  $("tutorial-body").classList.add("step-in");
}

$("tutorial-next").addEventListener("click", () => {
  if (step === STEPS.length - 1) $("tutorial").close(); else go(step + 1);
});
$("tutorial-back").addEventListener("click", () => go(step - 1));
$("tutorial-skip").addEventListener("click", () => $("tutorial").close());
// Every way out (Skip, the last step, Escape) ends in `close`: seen from then on.
$("tutorial").addEventListener("close", () => {
  try { localStorage.setItem(SEEN, "seen"); } catch { /* storage off: nothing to remember */ }
  const back = returnTo;
  returnTo = null;
  if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus({ preventScroll: true });
});
$("tutorial-replay").addEventListener("click", openTutorial);
onLanguage(() => { if ($("tutorial").open) render(); });
