// The banks: their titles (players see titles, never slugs), the bank pickers (friends, ranking,
// profile), and a colour per bank that follows it on every screen: the player's own choice
// (bank-notes.js) or one from its slug. The colour is only ever a stripe, a border or a dot,
// never behind text, so every text keeps its contrast whatever colour a player picks.
import { client } from "./connection.js";
import { el } from "./ui.js";
import { t } from "./i18n.js";
import { state, setBanks } from "./store.js";

/** The banks list, read once (the `banks` op is served before sign-in too). */
export async function ensureBanks() {
  if (!state.banks.length) setBanks(await client.banks().then((d) => d.banks, () => []));
  return state.banks;
}

/** A bank's or a player quiz's title by its slug; the slug only when neither is known (a retired bank). */
export function bankTitle(slug) {
  if (!slug) return "";
  return state.banks.find((b) => b.slug === slug)?.title ?? state.quizTitles[slug] ?? slug;
}

/** A difficulty in words ("easy" → the player's language); anything else as it is. */
export function difficultyText(difficulty) {
  return ["easy", "medium", "hard", "mixed"].includes(difficulty) ? t(`difficulty.${difficulty}`) : difficulty ?? "";
}

/** A hue for a bank, the same on every screen and device (from its slug). */
export function bankHue(slug) {
  let h = 0;
  for (const ch of slug ?? "") h = (h * 31 + ch.codePointAt(0)) % 360;
  return h;
}

/** The bank's own colour: from its slug, when the player chose none. */
export function defaultBankColor(slug) { return `hsl(${bankHue(slug)} 65% 45%)`; }

/** The colour of bank `slug` on every screen: the player's choice, else the bank's own. */
export function bankColor(slug) { return state.bankPref(slug)?.color ?? defaultBankColor(slug); }

/** Gives `node` the bank's colour (CSS --bank-color, drawn by .bank-stripe, .bank-dot …). */
export function paintBank(node, slug) {
  node.style.setProperty("--bank-color", bankColor(slug));
  node.dataset.bankColor = slug ?? "";
  return node;
}

/** The bank's title after a dot of its colour. */
export function bankChip(slug) {
  return paintBank(el("span", { class: "bank-chip" }, el("span", { class: "bank-dot", "aria-hidden": "true" }), bankTitle(slug)), slug);
}

export async function fillBankSelects(selects) {
  await ensureBanks();
  for (const select of selects) {
    if (!select.options.length) select.replaceChildren(...state.banks.map((b) => el("option", { value: b.slug }, b.title)));
  }
}
