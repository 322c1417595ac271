// Progress a student can see (docs/PROTOCOL.md, "Progress"): the start screen's greeting with
// the level, the notifications bell with its unseen badge (live), and the profile's XP bar,
// streak, rating chart (SVG, drawn here), goals, statistics and achievements.
import { client } from "./connection.js";
import { $, el, flash, note } from "./ui.js";
import { show, shown, route } from "./router.js";
import { state } from "./store.js";
import { fillBankSelects } from "./banks.js";

const GOAL_NAMES = { wins: "wins", games: "games", correct_answers: "right answers", mistakes_learned: "mistakes learned" };
const SVG = "http://www.w3.org/2000/svg";

const view = { oldest: null }; // this screen's own: the oldest notification listed, whether a chart bank was picked

// ---- the start screen greets the player with their level ----

function badge(node, player) {
  node.textContent = String(player.level ?? 1);
  node.style.background = player.level_color ?? "#6b7280";
  node.setAttribute("aria-label", `Level ${player.level ?? 1}`);
}

export function greet(player) {
  if (!player || player.level === undefined) { $("greeting").hidden = true; return; }
  $("greeting").hidden = false;
  badge($("greeting-badge"), player);
  $("greeting-title").textContent = `Level ${player.level}. ${player.level_title}`;
  $("greeting-line").textContent = `${player.level_line}${player.streak?.current ? ` · ${player.streak.current}-day streak` : ""}`;
}

// ---- notifications: a bell with the unseen count, live ----

function setBadge(count) {
  $("bell-badge").hidden = !count;
  $("bell-badge").textContent = String(count);
  $("bell").setAttribute("aria-label", count ? `Notifications, ${count} unseen` : "Notifications");
}

export async function refreshBadge() {
  try { setBadge((await client.notifications(1)).unseen); } catch { /* shown again at the next event */ }
}

function describe(n) {
  const d = n.data ?? {};
  switch (n.kind) {
    case "challenge_received": return `${d.from} challenged you (${d.bank})`;
    case "challenge_expired": return `Your challenge to ${d.to} expired`;
    case "achievement": return `Achievement: ${d.title}`;
    case "level_up": return `Level ${d.level}: ${d.title}`;
    case "goal_reached": return `Goal reached: ${d.target} ${GOAL_NAMES[d.kind] ?? d.kind} (+${d.xp} XP)`;
    case "report_resolved": return `A report about your quiz “${d.title}” was dealt with`;
    case "quiz_unpublished": return `Your quiz “${d.title}” was taken down: ${d.reason}`;
    case "quiz_promoted": return `Your quiz “${d.title}” is now in ranked play`;
    default: return n.kind;
  }
}

function item(n, seen) {
  const li = el("li", { "data-notification": String(n.id) }, describe(n), " ",
    el("span", { class: "muted" }, new Date(n.created_at).toLocaleString()));
  if (!seen) li.classList.add("unseen");
  return li;
}

client.on("notification", (event) => {
  const n = event.record;
  if (shown("notifications")) {
    $("notification-list").prepend(item(n, true));
    client.notificationsSeen(n.id).then((d) => setBadge(d.unseen), () => {});
  } else {
    setBadge(Number($("bell-badge").textContent || 0) + 1);
  }
  flash(describe(n));
});

async function notifications(more = false) {
  show("notifications");
  try {
    const data = await client.notifications(20, more ? view.oldest ?? undefined : undefined);
    const items = data.notifications;
    const unseenFrom = items.length - data.unseen; // the newest `unseen` ones are new
    const nodes = items.map((n, i) => item(n, more || i >= data.unseen));
    if (more) $("notification-list").append(...nodes); else $("notification-list").replaceChildren(...nodes);
    if (!more && !items.length) $("notification-list").append(el("li", { class: "muted" }, "Nothing yet."));
    view.oldest = items.length ? items[items.length - 1].id : view.oldest;
    $("notifications-more").hidden = items.length < 20;
    // Seen now: the badge clears.
    if (!more && items.length) setBadge((await client.notificationsSeen(items[0].id)).unseen);
    void unseenFrom;
  } catch (error) { flash(error.message); }
}

route("notifications", () => notifications(false));
$("notifications-more").addEventListener("click", () => notifications(true));

// ---- the profile: XP bar, streak, rating chart, goals, statistics, achievements ----

export async function profile() {
  show("profile");
  note("profile-note", "");
  const p = await client.profile().then((d) => d.player, () => null);
  if (!p) return;
  badge($("level-badge"), p);
  $("level-title").textContent = `Level ${p.level} · ${p.level_title}`;
  const span = p.next_level_xp - p.level_xp;
  const done = p.xp - p.level_xp;
  $("xp-text").textContent = `${p.xp} XP · ${p.next_level_xp - p.xp} to level ${p.level + 1}`;
  $("xp-fill").style.width = `${Math.round((100 * done) / span)}%`;
  $("xp-bar").setAttribute("aria-valuenow", String(done));
  $("xp-bar").setAttribute("aria-valuemax", String(span));
  $("streak").textContent = `Streak: ${p.streak.current} day${p.streak.current === 1 ? "" : "s"} · best ${p.streak.best}`;
  const facts = [["Username", p.username], ["Games", p.games], ["Wins", p.wins], ["Losses", p.losses], ["Draws", p.draws],
    ["Total score", p.total_score], ...Object.entries(p.ratings).map(([bank, rating]) => [`Rating: ${bank}`, rating])];
  $("profile").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
  await fillBankSelects([$("chart-bank")]);
  // The chart opens on a bank the player was rated in (the first one in the list otherwise).
  if (!view.chartChosen) {
    const played = Object.entries(p.ratings).find(([, rating]) => rating !== 1500)?.[0];
    if (played && [...$("chart-bank").options].some((o) => o.value === played)) $("chart-bank").value = played;
  }
  if ($("goal-bank").options.length <= 1) {
    $("goal-bank").append(...state.banks.map((b) => el("option", { value: b.slug }, b.title)));
  }
  await Promise.all([chart(), goals(), stats(), achievements()]);
}

route("profile", profile);

async function chart() {
  const bank = $("chart-bank").value;
  const points = bank ? await client.ratingHistory(bank, 50).then((d) => d.points, () => []) : [];
  const box = $("rating-chart");
  if (!points.length) { box.replaceChildren(el("p", { class: "muted" }, "Play ranked duels in this bank to see your rating here.")); return; }
  // The start (the rating before the first game) and the rating after each game.
  const values = [points[0].rating_before, ...points.map((p) => p.rating)];
  const w = 320, h = 160, pad = 28;
  const lo = Math.min(...values) - 10, hi = Math.max(...values) + 10;
  const x = (i) => pad + (i * (w - 2 * pad)) / Math.max(1, values.length - 1);
  const y = (v) => h - pad + ((v - lo) * (2 * pad - h)) / (hi - lo);
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${h}`);
  const add = (tag, attrs, text) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
    if (text !== undefined) node.textContent = text;
    svg.append(node);
    return node;
  };
  add("line", { class: "axis", x1: pad, y1: h - pad, x2: w - pad, y2: h - pad });
  add("line", { class: "axis", x1: pad, y1: pad, x2: pad, y2: h - pad });
  add("text", { x: 2, y: y(hi - 10) + 4 }, String(Math.round(hi - 10)));
  add("text", { x: 2, y: y(lo + 10) + 4 }, String(Math.round(lo + 10)));
  add("polyline", { class: "line", points: values.map((v, i) => `${x(i)},${y(v)}`).join(" ") });
  values.forEach((v, i) => add("circle", { class: "dot", cx: x(i), cy: y(v), r: 3, "data-rating": v }));
  box.replaceChildren(svg);
  box.setAttribute("aria-label", `Rating over your last ${points.length} games: from ${values[0]} to ${values[values.length - 1]}`);
}

async function goals() {
  const list = await client.goals().then((d) => d.goals, () => []);
  $("goals").replaceChildren(...(list.length ? list.map((g) => el("li", { "data-goal": g.kind },
    el("span", {}, `${g.progress} of ${g.target} ${GOAL_NAMES[g.kind]}${g.bank ? ` in ${g.bank}` : ""}${g.reached ? " ✓ reached" : ""}`),
    el("div", { class: "goal-bar", "aria-hidden": "true" },
      el("div", { style: `width:${Math.min(100, Math.round((100 * g.progress) / g.target))}%` }))))
    : [el("li", { class: "muted" }, "No goal this week yet.")]));
}

async function stats() {
  const s = await client.stats().catch(() => null);
  if (!s) return;
  const facts = [["Accuracy", s.accuracy === null ? "–" : `${Math.round(s.accuracy * 100)} %`],
    ["Mean answer time", `${(s.mean_answer_ms / 1000).toFixed(1)} s`],
    ...Object.entries(s.games_by_mode).map(([mode, n]) => [`Games (${mode})`, n])];
  $("stats").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
}

async function achievements() {
  const list = await client.achievements().then((d) => d.achievements, () => []);
  $("achievements").replaceChildren(...list.map((a) => el("li", {
    class: a.earned_at ? "earned" : "locked", "data-achievement": a.code,
    "aria-label": `${a.title}: ${a.earned_at ? "earned" : "locked"}. ${a.description}` },
    el("strong", {}, a.title), el("br"), el("span", { class: "muted" }, a.description))));
}

$("chart-bank").addEventListener("change", () => { view.chartChosen = true; chart(); });
$("goal-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const goal = { kind: $("goal-kind").value, target: Number($("goal-target").value) };
  if ($("goal-bank").value) goal.bank = $("goal-bank").value;
  try {
    await client.goalSet(goal);
    note("profile-note", "Goal set.");
    await goals();
  } catch (error) { note("profile-note", error.message); }
});
