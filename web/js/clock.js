// The duel screen's one ticking interval (the countdown's or the question timer's): at most one runs.

let timer = null;

export function tickEvery(ms, tick) {
  clearInterval(timer);
  timer = setInterval(tick, ms);
}

export function stopClock() { clearInterval(timer); }
