// The banks: their titles (players see titles, never slugs), the bank pickers (friends, ranking,
// profile), and a colour per bank that follows it on every screen.
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

export async function fillBankSelects(selects) {
  await ensureBanks();
  for (const select of selects) {
    if (!select.options.length) select.replaceChildren(...state.banks.map((b) => el("option", { value: b.slug }, b.title)));
  }
}
