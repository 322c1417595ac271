// Progress a student can see (docs/PROTOCOL.md, "Progress"): the start screen's greeting with
// the level, the notifications bell with its unseen badge (live), and the profile's XP bar,
// streak, rating chart (SVG, drawn here), statistics and achievements; its goals: goals.js.
import { client } from "./connection.js";
import { $, el, fillList, flash, note, toast, textOn } from "./ui.js";
import { show, shown, route } from "./router.js";
import { state, updatePlayer } from "./store.js";
import { fillBankSelects, bankTitle, paintBank } from "./banks.js";
import { goals, goalName, reminderText } from "./goals.js";
import { t, has, language } from "./i18n.js";
import { errorText } from "./errors.js";
import { play } from "./sound.js";
import { icon } from "./icons.js";

const SVG = "http://www.w3.org/2000/svg";

// Words the server sends in English (level titles and lines, achievements) are shown in the
// player's language when the catalogue knows them, by the title or the code; as sent otherwise
// (an operator may have added or renamed some).
const slug = (text) => String(text ?? "").toLowerCase().replace(/[^a-z0-9]+/g, "_");
export function levelTitle(title) { return has(`levelTitle.${slug(title)}`) ? t(`levelTitle.${slug(title)}`) : title; }
function levelLine(title, line) { return has(`levelLine.${slug(title)}`) ? t(`levelLine.${slug(title)}`) : line; }
function achievementTitle(code, title) { return has(`achievement.${code}.title`) ? t(`achievement.${code}.title`) : title; }
function achievementText(code, text) { return has(`achievement.${code}.description`) ? t(`achievement.${code}.description`) : text; }

const view = { oldest: null }; // this screen's own: the oldest notification listed, whether a chart bank was picked

// ---- the start screen greets the player with their level ----

function badge(node, player) {
  node.textContent = String(player.level ?? 1);
  // The server picks the badge's colour; the number on it is black or white, whichever reads.
  node.style.background = player.level_color ?? "#6b7280";
  node.style.color = textOn(player.level_color ?? "#6b7280");
  node.setAttribute("role", "img");
  node.setAttribute("aria-label", t("duel.level", { level: player.level ?? 1 }));
}

export function greet(player) {
  if (!player || player.level === undefined) { $("greeting").hidden = true; return; }
  $("greeting").hidden = false;
  badge($("greeting-badge"), player);
  $("greeting-title").textContent = t("progress.greeting", { level: player.level, title: levelTitle(player.level_title) });
  const line = levelLine(player.level_title, player.level_line);
  $("greeting-line").textContent = player.streak?.current ? t("progress.lineStreak", { line, count: player.streak.current }) : line;
}

// ---- notifications: a bell with the unseen count, live ----

function setBadge(count) {
  $("bell-badge").hidden = !count;
  $("bell-badge").textContent = String(count);
  $("bell").setAttribute("aria-label", count ? t("notifications.unseen", { count }) : t("nav.notifications"));
}

export async function refreshBadge() {
  try { setBadge((await client.notifications(1)).unseen); } catch { /* shown again at the next event */ }
}

function describe(n) {
  const d = n.data ?? {};
  switch (n.kind) {
    case "challenge_received": return t("notification.challengeReceived", { name: d.from, bank: bankTitle(d.bank) });
    case "challenge_expired": return t("notification.challengeExpired", { name: d.to });
    case "achievement": return t("notification.achievement", { title: achievementTitle(d.code, d.title) });
    case "level_up": return t("notification.levelUp", { level: d.level, title: levelTitle(d.title) });
    case "goal_reached": return t("notification.goalReached", { goal: goalName(d.kind, d.target), xp: d.xp });
    case "goal_reminder": return reminderText(d);
    case "report_resolved": return t("notification.reportResolved", { title: d.title });
    case "quiz_unpublished": return t("notification.quizUnpublished", { title: d.title, reason: d.reason });
    case "quiz_promoted": return t("notification.quizPromoted", { title: d.title });
    default: return t("notification.other");
  }
}

// Achievements and levels get a toast of their own (with a sound); the rest a plain one.
// The icons are names from icons.js.
const TOASTS = { achievement: ["achievement", "trophy"], level_up: ["level", "star"], goal_reached: ["achievement", "target"],
  goal_reminder: ["reminder", "bell"], challenge_received: ["challenge", "swords"] };

function item(n, seen) {
  const li = el("li", { "data-notification": String(n.id), "data-kind": n.kind }, describe(n), " ",
    el("span", { class: "muted" }, new Date(n.created_at).toLocaleString(language())));
  if (!seen) li.classList.add("unseen");
  return li;
}

client.on("notification", (event) => {
  const n = event.record;
  if (shown("notifications")) {
    const list = $("notification-list").querySelector("ul");
    if (list) list.prepend(item(n, true)); else fillList($("notification-list"), [item(n, true)], { empty: "" });
    client.notificationsSeen(n.id).then((d) => setBadge(d.unseen), () => {});
  } else {
    setBadge(Number($("bell-badge").textContent || 0) + 1);
  }
  // A challenge is announced by its own event too (friends.js): one toast is enough.
  if (n.kind === "challenge_received") return;
  const [kind, icon] = TOASTS[n.kind] ?? ["info", ""];
  toast(describe(n), { kind, icon });
  if (kind === "achievement" || kind === "level" || kind === "reminder") play("toast");
});

async function notifications(more = false) {
  show("notifications");
  try {
    const data = await client.notifications(20, more ? view.oldest ?? undefined : undefined);
    const items = data.notifications;
    // The newest `unseen` ones are new.
    const nodes = items.map((n, i) => item(n, more || i >= data.unseen));
    const list = $("notification-list").querySelector("ul");
    if (more && list) list.append(...nodes);
    else fillList($("notification-list"), nodes, { empty: t("notifications.empty") });
    view.oldest = items.length ? items[items.length - 1].id : view.oldest;
    $("notifications-more").hidden = items.length < 20;
    // Seen now: the badge clears.
    if (!more && items.length) setBadge((await client.notificationsSeen(items[0].id)).unseen);
  } catch (error) { flash(errorText(error)); }
}

route("notifications", () => notifications(false));
$("notifications-more").addEventListener("click", () => notifications(true));

// ---- the profile: XP bar, streak, rating chart, goals, statistics, achievements ----

export async function profile() {
  show("profile");
  note("profile-note", "");
  const p = await client.profile().then((d) => d.player, () => null);
  if (!p) return;
  updatePlayer(p);
  badge($("level-badge"), p);
  $("level-title").textContent = t("progress.levelTitle", { level: p.level, title: levelTitle(p.level_title) });
  const span = p.next_level_xp - p.level_xp;
  const done = p.xp - p.level_xp;
  $("xp-text").textContent = t("progress.xp", { xp: p.xp, next: p.next_level_xp - p.xp, level: p.level + 1 });
  $("xp-fill").style.width = `${Math.round((100 * done) / span)}%`;
  $("xp-bar").setAttribute("aria-valuenow", String(done));
  $("xp-bar").setAttribute("aria-valuemax", String(span));
  $("streak").textContent = t("progress.streak", { count: p.streak.current, best: p.streak.best });
  await fillBankSelects([$("chart-bank")]);
  const facts = [[t("profile.username"), p.username], [t("profile.games"), p.games], [t("profile.wins"), p.wins],
    [t("profile.losses"), p.losses], [t("profile.draws"), p.draws], [t("profile.totalScore"), p.total_score],
    ...Object.entries(p.ratings).map(([bank, rating]) => [t("profile.ratingIn", { bank: bankTitle(bank) }), rating])];
  $("profile").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
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
  paintBank($("rating-chart"), bank); // the chart's stripe: the bank's colour
  const points = bank ? await client.ratingHistory(bank, 50).then((d) => d.points, () => []) : [];
  const box = $("rating-chart");
  if (!points.length) { box.replaceChildren(el("p", { class: "empty" }, t("profile.chartEmpty"))); box.setAttribute("aria-label", t("profile.chartEmpty")); return; }
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
  box.setAttribute("aria-label", t("profile.chartLabel", { count: points.length, from: values[0], to: values[values.length - 1] }));
}

async function stats() {
  const s = await client.stats().catch(() => null);
  if (!s) return;
  const facts = [[t("stats.accuracy"), s.accuracy === null ? "–" : t("stats.percent", { value: Math.round(s.accuracy * 100) })],
    [t("stats.meanTime"), t("stats.seconds", { value: (s.mean_answer_ms / 1000).toFixed(1) })],
    ...Object.entries(s.games_by_mode).map(([mode, n]) => [has(`stats.games.${mode}`) ? t(`stats.games.${mode}`) : mode, n])];
  $("stats").replaceChildren(...facts.flatMap(([k, v]) => [el("dt", {}, k), el("dd", {}, String(v))]));
}

async function achievements() {
  const list = await client.achievements().then((d) => d.achievements, () => []);
  $("achievements").replaceChildren(...list.map((a) => {
    const title = achievementTitle(a.code, a.title);
    const text = achievementText(a.code, a.description);
    return el("li", { class: a.earned_at ? "earned" : "locked", "data-achievement": a.code },
      icon(a.earned_at ? "trophy" : "lock", "icon achievement-icon"),
      el("span", {}, el("strong", {}, title), el("span", { class: "visually-hidden" }, ` (${t(a.earned_at ? "achievements.earned" : "achievements.locked")})`),
        el("br"), el("span", { class: "muted" }, text)));
  }));
}

$("chart-bank").addEventListener("change", () => { view.chartChosen = true; chart(); });
