// The bank pickers (friends, ranking, profile): filled once, from the banks list (read if not yet).
import { client } from "./connection.js";
import { el } from "./ui.js";
import { state, setBanks } from "./store.js";

export async function fillBankSelects(selects) {
  if (!state.banks.length) setBanks(await client.banks().then((d) => d.banks, () => []));
  for (const select of selects) {
    if (!select.options.length) select.replaceChildren(...state.banks.map((b) => el("option", { value: b.slug }, b.title)));
  }
}
