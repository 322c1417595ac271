// Short sounds the client makes itself (Web Audio oscillators: no audio files to load), and the
// header's mute button, remembered on this device (settings.js).
import { $ } from "./ui.js";
import { settings } from "./settings.js";

/** Each sound: notes of [frequency Hz, start s, length s, wave, volume]. */
const SOUNDS = {
  countdown: [[440, 0, 0.08, "sine", 0.12]],
  go: [[523, 0, 0.09, "sine", 0.14], [784, 0.08, 0.16, "sine", 0.14]],
  tick: [[1200, 0, 0.03, "square", 0.03]],
  right: [[660, 0, 0.1, "triangle", 0.16], [990, 0.09, 0.18, "triangle", 0.16]],
  wrong: [[196, 0, 0.22, "sawtooth", 0.06]],
  lockout: [[466, 0, 0.1, "triangle", 0.12], [311, 0.1, 0.22, "triangle", 0.12]],
  win: [[523, 0, 0.12, "triangle", 0.15], [659, 0.12, 0.12, "triangle", 0.15], [784, 0.24, 0.32, "triangle", 0.15]],
  lose: [[392, 0, 0.18, "triangle", 0.12], [294, 0.18, 0.34, "triangle", 0.12]],
  toast: [[880, 0, 0.08, "sine", 0.08], [1320, 0.07, 0.12, "sine", 0.08]],
};

let context = null;
// Browsers let a page make sound only after a tap or a key: until then nothing is created
// (an AudioContext made earlier starts suspended and logs a warning).
let allowed = false;
for (const type of ["pointerdown", "keydown"]) {
  addEventListener(type, () => { allowed = true; audio(); }, { capture: true, once: true });
}

function audio() {
  if (!allowed || settings.muted) return null;
  const Context = window.AudioContext ?? window.webkitAudioContext;
  if (!Context) return null;
  context ??= new Context();
  if (context.state === "suspended") context.resume().catch(() => {});
  return context;
}

/** Plays sound `name` unless muted. */
export function play(name) {
  const notes = SOUNDS[name];
  const ctx = notes ? audio() : null;
  if (!ctx) return;
  const now = ctx.currentTime;
  for (const [frequency, start, length, wave, volume] of notes) {
    const osc = ctx.createOscillator();
    const gain = ctx.createGain();
    osc.type = wave;
    osc.frequency.value = frequency;
    // A quick attack and an exponential release: no clicks.
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(volume, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(ctx.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
}

// ---- the mute button (header) and the profile's checkbox: one setting ----

export function renderMute() {
  const muted = settings.muted;
  $("mute").setAttribute("aria-pressed", String(muted));
  $("mute").classList.toggle("muted", muted);
  $("sound-setting").checked = !muted;
}

export function setMuted(muted) {
  settings.muted = muted;
  if (muted && context) context.suspend().catch(() => {});
  renderMute();
}

$("mute").addEventListener("click", () => setMuted(!settings.muted));
$("sound-setting").addEventListener("change", (e) => setMuted(!e.target.checked));
renderMute();
