// The settings under Profile (and the language picker of the sign-in screen): the language, how
// to answer, sound. Each is remembered on this device (i18n.js, settings.js, sound.js).
import { $ } from "../ui.js";
import { reopen } from "../router.js";
import { setLanguage, fillLanguageSelect, onLanguage } from "../i18n.js";
import { settings } from "../settings.js";

const pickers = [$("lang"), $("auth-lang")];

function fillPickers() {
  for (const select of pickers) fillLanguageSelect(select);
}

for (const select of pickers) {
  select.addEventListener("change", async () => {
    if (await setLanguage(select.value)) {
      await reopen(); // the screen on show, drawn again in the new words
      select.focus(); // where the player was, not the screen's heading
    } else {
      fillPickers();
    }
  });
}

onLanguage(fillPickers);
fillPickers();

$("answer-mode").value = settings.answerMode;
$("answer-mode").addEventListener("change", () => { settings.answerMode = $("answer-mode").value; });
