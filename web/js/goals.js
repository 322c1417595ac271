// This week's goals on the profile (docs/PROTOCOL.md, "Weekly goals" and "Reminders"): each
// with its progress, when it is due and its reminder, in the player's own time and language; a
// form per goal to set its reminder (a local date and time, sent as UTC) or clear it; and the
// form to set a goal. The server sends the reminder when it is time, as a `goal_reminder`
// notification: progress.js lists it and shows its toast, in the words of reminderText().
import { client } from "./connection.js";
import { $, el, fillList, note } from "./ui.js";
import { shown } from "./router.js";
import { bankTitle, paintBank } from "./banks.js";
import { t, has, language } from "./i18n.js";
import { errorText } from "./errors.js";

/** "5 games": a goal's target in words (as sent, for a kind the catalogue does not know). */
export const goalName = (kind, count) => (has(`goal.count.${kind}`) ? t(`goal.count.${kind}`, { count }) : `${count} ${kind}`);

/** "3 of 5 games in World capitals": a goal (or a reminder's data) with its progress. */
function goalText({ kind, progress, target, bank }) {
  const goal = has(`progress.goal.${kind}`) ? t(`progress.goal.${kind}`, { progress, count: target })
    : `${progress} / ${goalName(kind, target)}`;
  return bank ? t("progress.goalInBank", { goal, bank: bankTitle(bank) }) : goal;
}

/** A moment in the player's language and time zone: "Sunday, November 29 at 11:59 PM". */
function when(ms) {
  return new Intl.DateTimeFormat(language(), { weekday: "long", day: "numeric", month: "long", hour: "2-digit", minute: "2-digit" })
    .format(new Date(ms));
}

// `due_at` is the first moment after the goal's week (Monday 00:00): shown as the week's last
// minute, Sunday 23:59, the day the player can still play for it.
const dueText = (iso) => when(Date.parse(iso) - 1);

/** A `goal_reminder` notification's data as a sentence (notifications list, toast). */
export function reminderText(data) {
  return t("notification.goalReminder", { goal: goalText(data), due: dueText(data.due_at) });
}

// ---- the goals list ----

const view = { open: null }; // the goal ("kind:bank") whose reminder form is open

const goalKey = (g) => `${g.kind}:${g.bank ?? ""}`;

/** Reads this week's goals and draws them. */
export async function goals() {
  const list = await client.goals().then((d) => d.goals, () => null);
  if (list) draw(list);
}

function draw(list) {
  fillList($("goals"), list.map(goalItem), { empty: t("progress.noGoal") });
}

function reminderLine(g) {
  if (g.reached) return "";
  if (!g.remind_at) return t("goals.noReminder");
  return t(g.reminded ? "goals.reminded" : "goals.reminder", { time: when(Date.parse(g.remind_at)) });
}

function goalItem(g) {
  const text = [goalText(g), g.reached ? t("progress.goalReached") : ""].filter(Boolean).join(" ");
  const pending = g.remind_at && !g.reminded;
  // A goal of one bank has that bank's stripe; one of every bank a plain grey one.
  const li = el("li", { class: "goal bank-stripe", "data-goal": g.kind, "data-goal-bank": g.bank ?? "",
    "data-reminded": String(!!g.reminded) },
    el("span", { class: "goal-text" }, text),
    el("div", { class: "goal-bar", "aria-hidden": "true" },
      el("div", { style: `width:${Math.min(100, Math.round((100 * g.progress) / g.target))}%` })),
    el("p", { class: "goal-when muted" }, el("span", { class: "goal-due" }, t("goals.due", { due: dueText(g.due_at) })),
      g.reached ? null : el("span", { class: "goal-reminder" }, reminderLine(g))));
  // A goal reached has nothing left to remind of (the server drops its reminder).
  if (!g.reached) {
    li.append(el("div", { class: "goal-actions" },
      el("button", { type: "button", class: "link", "data-remind": goalKey(g), "aria-expanded": String(view.open === goalKey(g)),
        onclick: () => toggleForm(g, li) }, t(pending ? "goals.changeReminder" : "goals.setReminder")),
      pending ? el("button", { type: "button", class: "link", "data-clear-reminder": goalKey(g), onclick: () => clearReminder(g) },
        t("goals.clearReminder")) : null));
    if (view.open === goalKey(g)) li.append(reminderForm(g));
  }
  return g.bank ? paintBank(li, g.bank) : li;
}

// ---- setting and clearing a reminder ----

/** A time as a datetime-local field's value: the player's local wall clock, to the minute. */
function localValue(ms) {
  const d = new Date(ms);
  const pad = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

function toggleForm(g, li) {
  const key = goalKey(g);
  view.open = view.open === key ? null : key;
  const fresh = goalItem(g);
  li.replaceWith(fresh);
  (fresh.querySelector(".reminder-form input") ?? fresh.querySelector("[data-remind]"))?.focus();
}

function reminderForm(g) {
  const due = Date.parse(g.due_at);
  const now = Date.now();
  // The reminder set (if still to come), else an hour from now: a time to edit, not to type.
  const set = g.remind_at && !g.reminded ? Date.parse(g.remind_at) : NaN;
  const start = Number.isFinite(set) && set > now ? set : Math.min(now + 3600_000, due - 60_000);
  const input = el("input", { type: "datetime-local", class: "reminder-at", min: localValue(now), max: localValue(due - 60_000),
    value: localValue(start), required: "" });
  const error = el("p", { class: "error", role: "alert" });
  // novalidate: the browser's own bubbles are in its language, not the player's; the checks
  // below say the same in words.
  const form = el("form", { class: "reminder-form", novalidate: "" },
    el("label", {}, el("span", {}, t("goals.remindAt")), input),
    error,
    el("div", { class: "row" },
      el("button", { type: "submit", class: "primary" }, t("goals.saveReminder")),
      el("button", { type: "button", onclick: () => { view.open = null; goals(); } }, t("common.cancel"))));
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    // A datetime-local value has no zone: Date reads it as local time, as the player meant it.
    const at = input.value ? new Date(input.value).getTime() : NaN;
    const fail = (sentence) => { error.textContent = sentence; input.focus(); };
    if (!Number.isFinite(at)) { fail(t("goals.reminderPick")); return; }
    if (at <= Date.now()) { fail(t("goals.reminderPast")); return; }
    if (at > due) { fail(t("goals.reminderLate", { due: dueText(g.due_at) })); return; }
    try {
      const reply = await setGoal(g, new Date(at).toISOString());
      view.open = null;
      draw(reply.goals);
      note("profile-note", t("goals.reminderSet", { time: when(at) }));
    } catch (failure) {
      // The server checks against its own clock: `bad_request` naming remind_at is out of range.
      fail(failure.code === "bad_request" && /^remind_at\b/.test(failure.message)
        ? t("goals.reminderRange", { due: dueText(g.due_at) }) : errorText(failure));
    }
  });
  return form;
}

// goal_set again with the goal's own kind, bank and target changes only its reminder.
function setGoal(g, remindAt) {
  const goal = { kind: g.kind, target: g.target, remind_at: remindAt };
  if (g.bank) goal.bank = g.bank;
  return client.goalSet(goal);
}

async function clearReminder(g) {
  try {
    const reply = await setGoal(g, null);
    view.open = null;
    draw(reply.goals);
    note("profile-note", t("goals.reminderCleared"));
  } catch (error) { note("profile-note", errorText(error)); }
}

// A reminder went off: the goal on show says so (its toast and list entry: progress.js).
client.on("notification", (event) => {
  if (event.record.kind === "goal_reminder" && shown("profile")) goals();
});

// ---- setting a goal ----

$("goal-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const goal = { kind: $("goal-kind").value, target: Number($("goal-target").value) };
  if ($("goal-bank").value) goal.bank = $("goal-bank").value;
  try {
    draw((await client.goalSet(goal)).goals);
    note("profile-note", t("progress.goalSet"));
  } catch (error) { note("profile-note", errorText(error)); }
});
