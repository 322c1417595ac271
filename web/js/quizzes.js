// Quizzes players make (docs/PROTOCOL.md, "Quizzes players make"): the catalog, my quizzes,
// the library, a quiz's page, and the editor with a preview of every question type.
// Everything players wrote goes into the page as text (textContent, attribute values), never
// as HTML, so a prompt like `<img src=x onerror=…>` shows as those characters.
import { client } from "./connection.js";
import { $, el, note } from "./ui.js";
import { show, route } from "./router.js";
import { state, rememberQuizTitle } from "./store.js";
import { difficultyText } from "./banks.js";
import { t, onLanguage } from "./i18n.js";
import { errorText } from "./errors.js";
import { practise } from "./screens/home.js";
import { showRoom, roomError } from "./screens/room.js";

const TYPES = ["single", "multiple", "boolean", "text", "number"];
const typeName = (type) => (TYPES.includes(type) ? t(`type.${type}`) : type);
const DIFFICULTIES = ["easy", "medium", "hard", "mixed"];

// These screens' own: the tab and catalog page on show, the quiz on its page, the quiz and question in the editor.
const view = { tab: "catalog", cursor: null, quiz: null, editing: null, questions: [], editQuestion: null };

// A quiz's title is kept by its slug, to name a room playing it.
const remember = (quiz) => { rememberQuizTitle(quiz); return quiz; };
const fail = (id) => (error) => note(id, errorText(error));

// ---- lists: catalog, my quizzes, library ----

export async function quizzes(tab = view.tab) {
  view.tab = tab;
  show("quizzes");
  note("quizzes-note", "");
  for (const name of ["catalog", "mine", "library"]) {
    $(`tab-${name}`).setAttribute("aria-selected", String(name === tab));
  }
  $("catalog-form").hidden = tab !== "catalog";
  $("new-quiz").hidden = tab !== "mine";
  $("catalog-more").hidden = true;
  $("quiz-list").replaceChildren();
  showEmpty("");
  if (tab === "catalog") return search(false);
  try {
    const list = tab === "mine" ? (await client.myQuizzes()).quizzes : (await client.library()).quizzes;
    fill(list, false);
    showEmpty(list.length ? "" : t(tab === "mine" ? "quizzes.emptyMine" : "quizzes.emptyLibrary"));
  } catch (error) { note("quizzes-note", errorText(error)); }
}

route("quizzes", () => quizzes());

async function search(more) {
  const query = { sort: $("catalog-sort").value, limit: 20 };
  const text = $("catalog-search").value.trim();
  const theme = $("catalog-theme").value.trim();
  if (text) query.search = text;
  if (theme) query.theme = theme;
  if ($("catalog-difficulty").value) query.difficulty = $("catalog-difficulty").value;
  if (more && view.cursor) query.cursor = view.cursor;
  try {
    const page = await client.catalog(query);
    view.cursor = page.next_cursor;
    fill(page.quizzes, more);
    $("catalog-more").hidden = !page.next_cursor;
    if (!more) showEmpty(page.quizzes.length ? "" : t("quizzes.emptyCatalog"));
  } catch (error) { note("quizzes-note", errorText(error)); }
}

// An empty list says what to do, in a paragraph of its own (not a list item).
function showEmpty(text) {
  $("quiz-list-empty").textContent = text;
  $("quiz-list-empty").hidden = !text;
  $("quiz-list").hidden = !!text;
}

// "10 questions · science · easy · by ada"
function quizMeta(q) {
  return [t("common.questions", { count: q.questions }), q.theme, difficultyText(q.difficulty), t("quizzes.by", { name: q.owner.username })].join(" · ");
}

function card(q) {
  remember(q);
  const state_ = q.published
    ? [t("quizzes.plays", { count: q.plays }), t("quizzes.likes", { count: q.likes }), t("quizzes.dislikes", { count: q.dislikes }),
      t("quizzes.saves", { count: q.saves })].join(" · ")
    : t("quizzes.private");
  return el("li", { "data-quiz": q.quiz },
    el("span", { class: "bank" },
      el("strong", {}, q.title), el("br"),
      el("span", { class: "muted" }, quizMeta(q)), el("br"),
      el("span", { class: "muted" }, state_),
      q.unpublished_reason ? el("span", { class: "error" }, ` · ${t("quizzes.takenDown", { reason: q.unpublished_reason })}`) : ""),
    el("span", { class: "actions" },
      el("button", { "data-open": q.quiz, "aria-label": t(view.tab === "mine" ? "quizzes.editLabel" : "quizzes.openLabel", { title: q.title }),
        onclick: () => (view.tab === "mine" ? edit(q.quiz) : page(q.quiz)) },
        view.tab === "mine" ? t("quiz.edit") : t("quizzes.open"))));
}

function fill(list, append) {
  const cards = list.map(card);
  if (append) $("quiz-list").append(...cards); else $("quiz-list").replaceChildren(...cards);
}

$("tab-catalog").addEventListener("click", () => quizzes("catalog"));
$("tab-mine").addEventListener("click", () => quizzes("mine"));
$("tab-library").addEventListener("click", () => quizzes("library"));
$("catalog-form").addEventListener("submit", (e) => { e.preventDefault(); search(false); });
$("catalog-more").addEventListener("click", () => search(true));
$("new-quiz").addEventListener("click", () => edit(null));

// ---- a quiz's page ----

async function page(slug) {
  try {
    view.quiz = remember((await client.quiz(slug)).quiz);
  } catch (error) { note("quizzes-note", errorText(error)); return; }
  show("quiz");
  note("quiz-note", "");
  renderPage();
}

function renderPage() {
  const q = view.quiz;
  $("quiz-title").textContent = q.title;
  $("quiz-meta").textContent = `${quizMeta(q)} · ${q.published ? t("quizzes.plays", { count: q.plays }) : t("quizzes.private")}`;
  $("quiz-description").textContent = q.description;
  const mine = q.owner.id === state.player?.id;
  const playable = q.published || mine;
  $("quiz-practise").disabled = !playable;
  $("quiz-room").disabled = !playable;
  $("quiz-save").textContent = q.saved ? t("quiz.saved") : t("quiz.save");
  $("quiz-save").setAttribute("aria-pressed", String(q.saved));
  $("quiz-likes").textContent = String(q.likes);
  $("quiz-dislikes").textContent = String(q.dislikes);
  $("quiz-like").setAttribute("aria-pressed", String(q.your_vote === 1));
  $("quiz-dislike").setAttribute("aria-pressed", String(q.your_vote === -1));
  $("quiz-like").hidden = mine || !q.published;
  $("quiz-dislike").hidden = mine || !q.published;
  $("quiz-edit").hidden = !mine;
  $("quiz-report").hidden = mine;
  if (!q.published && !mine) note("quiz-note", t("quiz.unpublished"));
}

$("quiz-practise").addEventListener("click", () => practise({ bank: view.quiz.quiz }));
$("quiz-room").addEventListener("click", async () => {
  try {
    const room = (await client.roomCreate(view.quiz.quiz, { questions: Math.max(1, Math.min(10, view.quiz.questions)) })).room;
    showRoom(room);
  } catch (error) { note("quiz-note", roomError(error)); }
});
$("quiz-save").addEventListener("click", async () => {
  try {
    if (view.quiz.saved) {
      await client.quizUnsave(view.quiz.quiz);
      view.quiz = (await client.quiz(view.quiz.quiz)).quiz;
    } else {
      view.quiz = (await client.quizSave(view.quiz.quiz)).quiz;
    }
    renderPage();
  } catch (error) { note("quiz-note", errorText(error)); }
});
for (const [id, value] of [["quiz-like", 1], ["quiz-dislike", -1]]) {
  $(id).addEventListener("click", async () => {
    const vote = view.quiz.your_vote === value ? 0 : value; // a second press takes the vote back
    try {
      const counts = await client.rate({ quiz: view.quiz.quiz }, vote);
      Object.assign(view.quiz, { likes: counts.likes, dislikes: counts.dislikes, your_vote: counts.your_vote });
      renderPage();
    } catch (error) { note("quiz-note", errorText(error)); }
  });
}
$("quiz-edit").addEventListener("click", () => edit(view.quiz.quiz));
$("quiz-report").addEventListener("click", async () => {
  const reason = prompt(t("report.quizPrompt"));
  if (!reason) return;
  try {
    await client.reportQuiz(view.quiz.quiz, reason.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g, " ").trim().slice(0, 500));
    note("quiz-note", t("report.thanks"));
  } catch (error) { note("quiz-note", errorText(error)); }
});

// ---- the editor ----

async function edit(slug) {
  view.editing = null;
  view.questions = [];
  show("editor");
  note("editor-note", "");
  if (slug) {
    try {
      const data = await client.quizQuestions(slug);
      view.editing = remember(data.quiz);
      view.questions = data.questions;
    } catch (error) { note("editor-note", errorText(error)); return; }
  }
  const q = view.editing;
  $("editor-title").textContent = q ? t("editor.editTitle", { title: q.title }) : t("editor.newTitle");
  $("quiz-form-title").value = q?.title ?? "";
  $("quiz-form-description").value = q?.description ?? "";
  $("quiz-form-theme").value = q?.theme ?? "";
  $("quiz-form-difficulty").value = q?.difficulty ?? "mixed";
  $("quiz-form-save").textContent = q ? t("editor.saveQuiz") : t("editor.createQuiz");
  resetQuestionForm();
  renderEditor();
}

function renderEditor() {
  const q = view.editing;
  $("editor-actions").hidden = !q;
  $("editor-questions-box").hidden = !q;
  if (!q) return;
  $("editor-publish").textContent = q.published ? t("editor.unpublish") : t("editor.publish");
  $("editor-state").textContent = q.published ? t("editor.statePublished") :
    q.unpublished_reason ? t("editor.stateTakenDown", { reason: q.unpublished_reason }) : t("editor.statePrivate");
  $("editor-questions").replaceChildren(...view.questions.map((question) => el("li", { "data-question": String(question.question_id) },
    el("span", {}, el("strong", {}, question.prompt), el("br"),
      el("span", { class: "muted" }, `${typeName(question.type)} · ${keySummary(question)}`)),
    el("span", { class: "actions" },
      el("button", { onclick: () => loadQuestion(question) }, t("quiz.edit")),
      el("button", { class: "danger", onclick: () => removeQuestion(question) }, t("editor.deleteQuestion"))))));
  $("editor-questions").hidden = !view.questions.length;
  $("editor-questions-empty").hidden = view.questions.length > 0;
}

function keySummary(q) {
  switch (q.type) {
    case "multiple": return t("editor.keyRight", { answer: q.correct_choices.map((i) => q.choices[i]).join(", ") });
    case "boolean": return t("editor.keyRight", { answer: t(q.correct_choice === 0 ? "answer.true" : "answer.false") });
    case "text": return t("editor.keyAccepted", { answers: q.accepted.join(" / "), matching: t(`matching.${q.matching}`) });
    case "number": return t("editor.keyRight", { answer: `${q.correct_number}${q.tolerance ? ` ± ${q.tolerance}` : ""}` });
    default: return t("editor.keyRight", { answer: q.choices[q.correct_choice] });
  }
}

$("quiz-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const fields = {
    title: $("quiz-form-title").value, description: $("quiz-form-description").value,
    theme: $("quiz-form-theme").value.trim() || "general", difficulty: $("quiz-form-difficulty").value,
  };
  try {
    view.editing = remember(view.editing
      ? (await client.quizUpdate(view.editing.quiz, fields)).quiz
      : (await client.quizCreate(fields)).quiz);
    $("editor-title").textContent = t("editor.editTitle", { title: view.editing.title });
    $("quiz-form-save").textContent = t("editor.saveQuiz");
    note("editor-note", t("editor.saved"));
    renderEditor();
  } catch (error) { note("editor-note", errorText(error)); }
});

$("editor-publish").addEventListener("click", async () => {
  try {
    const q = view.editing;
    view.editing = remember(q.published ? (await client.quizUnpublish(q.quiz)).quiz : (await client.quizPublish(q.quiz)).quiz);
    note("editor-note", view.editing.published ? t("editor.published") : t("editor.unpublished"));
    renderEditor();
  } catch (error) { note("editor-note", error.code === "bank_empty" ? t("editor.addQuestionFirst") : errorText(error)); }
});
$("editor-view").addEventListener("click", () => page(view.editing.quiz));
$("editor-delete").addEventListener("click", async () => {
  if (!confirm(t("editor.confirmDelete", { title: view.editing.title }))) return;
  try {
    await client.quizDelete(view.editing.quiz);
    quizzes("mine");
  } catch (error) { note("editor-note", errorText(error)); }
});

async function removeQuestion(question) {
  try {
    await client.questionDelete(question.question_id);
    view.questions = view.questions.filter((q) => q.question_id !== question.question_id);
    renderEditor();
  } catch (error) { note("editor-note", errorText(error)); }
}

// ---- the question form, with a preview of what players will see ----

function choiceRow(text = "", right = false) {
  const type = $("qf-type").value;
  const marker = el("input", { type: type === "single" ? "radio" : "checkbox", name: "qf-right", "aria-label": t("editor.markRight") });
  marker.checked = right;
  const input = el("input", { class: "qf-choice", maxlength: "100", "aria-label": t("editor.choice") });
  input.value = text;
  const li = el("li", {}, marker, input, el("button", { type: "button", class: "link", "aria-label": t("editor.removeChoice"),
    onclick: () => { if ($("qf-choices").children.length > 2) { li.remove(); preview(); } } }, "✕"));
  return li;
}

function resetQuestionForm() {
  view.editQuestion = null;
  $("question-form-title").textContent = t("editor.addQuestionTitle");
  $("qf-save").textContent = t("editor.addQuestion");
  $("qf-cancel").hidden = true;
  $("qf-type").value = "single";
  $("qf-prompt").value = "";
  $("qf-choices").replaceChildren(choiceRow("", true), choiceRow(), choiceRow(), choiceRow());
  $("qf-accepted").value = "";
  $("qf-matching").value = "rough";
  $("qf-number").value = "";
  $("qf-tolerance").value = "0";
  document.querySelector('input[name="qf-bool"][value="0"]').checked = true;
  typeChanged();
}

function loadQuestion(q) {
  resetQuestionForm();
  view.editQuestion = q;
  $("question-form-title").textContent = t("editor.editQuestionTitle");
  $("qf-save").textContent = t("editor.saveQuestion");
  $("qf-cancel").hidden = false;
  $("qf-type").value = q.type;
  $("qf-prompt").value = q.prompt;
  if (q.type === "single" || q.type === "multiple") {
    const right = new Set(q.type === "single" ? [q.correct_choice] : q.correct_choices);
    $("qf-type").value = q.type;
    $("qf-choices").replaceChildren();
    typeChanged();
    $("qf-choices").replaceChildren(...q.choices.map((c, i) => choiceRow(c, right.has(i))));
  }
  if (q.type === "boolean") document.querySelector(`input[name="qf-bool"][value="${q.correct_choice}"]`).checked = true;
  if (q.type === "text") { $("qf-accepted").value = q.accepted.join("\n"); $("qf-matching").value = q.matching; }
  if (q.type === "number") { $("qf-number").value = String(q.correct_number); $("qf-tolerance").value = String(q.tolerance); }
  typeChanged();
  $("qf-prompt").focus();
}

function typeChanged() {
  const type = $("qf-type").value;
  $("qf-choices-box").hidden = type !== "single" && type !== "multiple";
  $("qf-boolean-box").hidden = type !== "boolean";
  $("qf-text-box").hidden = type !== "text";
  $("qf-number-box").hidden = type !== "number";
  for (const marker of $("qf-choices").querySelectorAll('input[name="qf-right"]')) {
    marker.type = type === "single" ? "radio" : "checkbox";
  }
  preview();
}

// The question the form describes, in question_add's fields.
function question() {
  const type = $("qf-type").value;
  const fields = { type, prompt: $("qf-prompt").value };
  if (type === "single" || type === "multiple") {
    const rows = [...$("qf-choices").children];
    fields.choices = rows.map((li) => li.querySelector(".qf-choice").value);
    const right = rows.flatMap((li, i) => (li.querySelector('input[name="qf-right"]').checked ? [i] : []));
    if (type === "single") fields.correct_choice = right[0] ?? 0; else fields.correct_choices = right;
  } else if (type === "boolean") {
    fields.correct_choice = Number(document.querySelector('input[name="qf-bool"]:checked').value);
  } else if (type === "text") {
    fields.accepted = $("qf-accepted").value.split("\n").map((s) => s.trim()).filter(Boolean);
    fields.matching = $("qf-matching").value;
  } else {
    fields.correct_number = Number($("qf-number").value);
    fields.tolerance = Number($("qf-tolerance").value || 0);
  }
  return fields;
}

// What a player will see: the prompt and the answer input, the right answers marked.
function preview() {
  const q = question();
  const box = $("qf-preview");
  const parts = [el("p", { class: "prompt" }, q.prompt || t("editor.previewPrompt"))];
  if (q.type === "single" || q.type === "multiple") {
    const right = new Set(q.type === "single" ? [q.correct_choice] : q.correct_choices);
    parts.push(el("div", { class: "choices" }, ...q.choices.map((text, i) => {
      const b = el("button", { type: "button", disabled: "", class: `tile tile-${i}` },
        q.type === "multiple" ? el("span", { class: "box" }, "☐") : "",
        el("span", { class: "key" }, String.fromCharCode(65 + i)), el("span", { class: "tile-text" }, text || "…"));
      if (right.has(i)) b.classList.add("correct");
      return b;
    })));
  } else if (q.type === "boolean") {
    parts.push(el("div", { class: "choices" }, ...[t("answer.true"), t("answer.false")].map((text, i) => {
      const b = el("button", { type: "button", disabled: "", class: `tile tile-${i}` },
        el("span", { class: "key" }, String.fromCharCode(65 + i)), el("span", { class: "tile-text" }, text));
      if (q.correct_choice === i) b.classList.add("correct");
      return b;
    })));
  } else {
    parts.push(el("div", { class: "free-answer" }, el("input", { disabled: "", "aria-label": t("duel.yourAnswer"),
      placeholder: q.type === "number" ? t("duel.numberPlaceholder") : t("duel.textPlaceholder") })));
    const number = Number.isFinite(q.correct_number) ? q.correct_number : "…";
    parts.push(el("p", { class: "answer-key" }, q.type === "text"
      ? t("key.accepted", { answers: q.accepted.join(" / ") || "…" })
      : q.tolerance ? t("key.rightNumberTolerance", { number, tolerance: q.tolerance }) : t("key.rightAnswer", { answer: number })));
  }
  box.replaceChildren(...parts);
}

$("qf-type").addEventListener("change", typeChanged);
$("question-form").addEventListener("input", preview);
$("question-form").addEventListener("change", preview);
$("qf-add-choice").addEventListener("click", () => {
  if ($("qf-choices").children.length < 6) { $("qf-choices").append(choiceRow()); preview(); }
});
$("qf-cancel").addEventListener("click", resetQuestionForm);
$("question-form").addEventListener("submit", async (e) => {
  e.preventDefault();
  const fields = question();
  try {
    if (view.editQuestion) {
      const saved = (await client.questionUpdate(view.editQuestion.question_id, fields)).question;
      view.questions = view.questions.map((q) => (q.question_id === view.editQuestion.question_id ? saved : q));
    } else {
      view.questions.push((await client.questionAdd(view.editing.quiz, fields)).question);
    }
    view.editing.questions = view.questions.length;
    note("editor-note", t("editor.questionSaved"));
    resetQuestionForm();
    renderEditor();
  } catch (error) { note("editor-note", errorText(error)); }
});

// The difficulty pickers, in the player's language (again after a switch).
function fillDifficulties() {
  for (const select of [$("quiz-form-difficulty"), $("catalog-difficulty")]) {
    const value = select.value;
    for (const option of [...select.options]) if (option.value) option.remove();
    select.append(...DIFFICULTIES.map((d) => el("option", { value: d }, difficultyText(d))));
    select.value = value || (select.id === "quiz-form-difficulty" ? "mixed" : "");
  }
}
fillDifficulties();
onLanguage(fillDifficulties);
