// The workbench page's behaviour: send each edit to the server (which validates it as the command line
// does and refuses it at the field), start and stop jobs, and refresh the job being watched and the runs
// list together every second while a job runs. No library: every request goes to this server, with the
// page's cookie as its token.
"use strict";

const $ = (sel, root = document) => root.querySelector(sel);
const state = { draft: null, job: null, timer: null, turn: 0, skills: {} };

function say(message, ok = false) {
  // the run message: an error in red, a success (ok) in green
  const box = $("#run-message");
  box.textContent = message;
  box.className = ok ? "ok" : "error";
}

function keepSkill(draft, skill) {
  // the skill the draft had (chosen here, else the level its last job played): the choice keeps it
  const option = skill && [...$("#agents").options].find((o) => o.value === skill);
  if (option && !option.disabled) $("#agents").value = skill;
  if (draft && option) state.skills[draft] = skill;
}

async function call(method, url, body) {
  const response = await fetch(url, {
    method, headers: body ? { "content-type": "application/json" } : {},
    body: body ? JSON.stringify(body) : undefined, credentials: "same-origin",
  });
  const type = response.headers.get("content-type") || "";
  const data = type.includes("json") ? await response.json() : { ok: response.ok, html: await response.text() };
  if (!response.ok && data.ok === undefined) data.ok = false;
  return data;
}

function players() { return Number($("#players").value); }

function showStarts() {
  const game = $("#game").value;
  const option = $("#game").selectedOptions[0];
  $("#players").min = option.dataset.min;
  $("#players").max = option.dataset.max;
  let first = null;
  for (const o of $("#start").options) {
    o.hidden = o.dataset.game !== game;
    if (!o.hidden && !first) first = o;
  }
  if ($("#start").selectedOptions[0].hidden && first) first.selected = true;
}

function clearErrors() {
  document.querySelectorAll(".field-error, .group-error").forEach((e) => { e.textContent = ""; });
  document.querySelectorAll(".invalid").forEach((e) => e.classList.remove("invalid"));
}

function fieldOf(key) {
  // the field a message's key belongs to: the key itself, else its nearest enclosing key
  // ("board.sakura[1]" is about the field board.sakura)
  for (let k = key; k; k = k.replace(/(\[\d+\]|\.[^.\[]+)$/, "")) {
    const input = document.querySelector(`[data-key="${CSS.escape(k)}"]`);
    if (input) return [k, input];
    if (!/(\[\d+\]|\.[^.\[]+)$/.test(k)) break;
  }
  return [key, null];
}

function showError(key, message, at) {
  let input = null;
  if (key) [key, input] = fieldOf(key);
  if (!input && key && /^[a-z_]+$/.test(key)) input = document.getElementById(key);  // a form's own field
  let slot = key && document.querySelector(`[data-error-for="${CSS.escape(key)}"]`);
  if (!slot && input && input.closest("fieldset")) slot = input.closest("fieldset").querySelector(".group-error");
  if (input) input.classList.add("invalid");
  else if (slot && slot.closest("fieldset")) slot.closest("fieldset").classList.add("invalid");
  markRow(key, at);
  if (slot) slot.textContent = message;
  else say(message);
}

function markRow(key, at) {
  // a field of rows (the tune form's): mark the inputs of the row the server names (at.row counts from 1;
  // no at.inputs: the whole row), while the message stays in the field's slot
  const table = key && at && at.row && document.querySelector(`[data-rows-for="${CSS.escape(key)}"]`);
  const row = table && table.tBodies[0].rows[at.row - 1];
  if (!row) return;
  const inputs = at.inputs ? at.inputs.map((c) => row.querySelector(`[data-column="${CSS.escape(c)}"]`))
                           : [...row.querySelectorAll("[data-column]")];
  inputs.forEach((i) => i && i.classList.add("invalid"));
}

function showEditor(data) {
  if (data.html === undefined) { say(data.message); return; }
  state.draft = data.draft;
  $("#draft").value = data.draft;
  $("#editor").innerHTML = data.html;
  $("#download-toml").href = `download/${encodeURIComponent(data.draft)}`;
  for (const id of ["#run-button", "#compare-button", "#values-button"]) $(id).disabled = !data.ok;
}

async function openDraft(reset) {
  const body = { start: $("#start").value, draft: $("#draft").value || null, players: players(), reset };
  const data = await call("POST", "drafts", body);
  clearErrors();  // with the answer in hand: the old editor and its marks go in the same moment
  say("");
  if (data.html === undefined) { showError(data.field, data.message); return; }  // refused: at its field
  showEditor(data);
  keepSkill(data.draft, state.skills[data.draft] || data.skill);
  skillCosts();
}

async function reloadEditor() {
  if (!state.draft) return;
  showEditor(await call("GET", `editor?draft=${encodeURIComponent(state.draft)}&players=${players()}`));
  skillCosts();
}

async function skillCosts() {
  // each skill level with what it costs on the draft (games per second, measured by the server once per
  // config and player count); a level that cannot play here says why
  if (!state.draft) return;
  const asked = { draft: state.draft, players: players() };
  for (const o of $("#agents").options) o.textContent = `${o.dataset.words}: measuring…`;
  const data = await call("POST", "skills", asked);
  if (state.draft !== asked.draft || players() !== asked.players) return;  // a newer question is on its way
  for (const o of $("#agents").options) {
    const cost = data.ok && data.skills[o.value];
    o.textContent = cost ? cost.label : o.dataset.words;
    o.disabled = Boolean(cost) && cost.games_per_s === null;
  }
}

async function edit(input) {
  clearErrors();
  const data = await call("POST", "edit", { draft: state.draft, players: players(), key: input.dataset.key,
                                            value: input.value });
  if (!data.ok) { showError(data.field || input.dataset.key, data.message); return; }
  input.classList.add("saved");
  setTimeout(() => input.classList.remove("saved"), 800);
  skillCosts();  // the draft changed: what each level costs on it may too
}

async function bulk() {
  clearErrors();
  const data = await call("POST", "edit", { draft: state.draft, players: players(),
    pattern: $("#bulk-pattern").value, operation: $("#bulk-operation").value, value: $("#bulk-value").value });
  if (!data.ok) { showError(data.field === "bulk" ? "bulk" : data.field, data.message); return; }
  const note = `${data.changed} value(s) changed`;
  await reloadEditor();
  $('[data-error-for="bulk"]').textContent = note;
}

function runBody() {
  const questions = [...document.querySelectorAll("#questions input:checked")].map((box) => box.value);
  return { draft: state.draft, start: $("#start").value, players: players(), agents: $("#agents").value,
           seed: Number($("#seed").value), games: Number($("#games").value), questions,
           until_decided: $("#until_decided").checked, base_games: $("#base_games").value || null };
}

async function start(kind) {
  clearErrors();
  say("");
  if (!state.draft) { say("Open a draft first."); return; }
  const data = await call("POST", kind, runBody());
  if (!data.ok) { showError(data.field, data.message); return; }
  state.skills[state.draft] = $("#agents").value;
  watch(data.job);
}

async function tune() {
  clearErrors();
  if (!state.draft) { say("Open a draft first."); return; }
  const data = await call("POST", "tune", { ...runBody(), space: tuneSpace(), budget: Number($("#budget").value),
    budget_unit: $("#budget_unit").value, tolerance: $("#tolerance").value });
  if (!data.ok) { showError(data.field, data.message, data.at); return; }
  watch(data.job);
}

function tuneSpace() {
  return [...document.querySelectorAll(".tune-space tbody tr")].map((row) => ({
    pattern: $(".tune-pattern", row).value, min: $(".tune-min", row).value, max: $(".tune-max", row).value }));
}

function exploreBody() {
  // the tune form's values, ranges and tolerance with the run form; the rules of the game's design kept,
  // as ticked for these rows (none ticked yet: every rule the rows touch)
  const body = { ...runBody(), space: tuneSpace(), tolerance: $("#tolerance").value };
  if (state.keep && state.keep.rows === JSON.stringify(body.space)) body.keep = state.keep.names;
  return body;
}

async function explore() {
  // "Show fair alternatives": what it will cost first (/explore/estimate), nothing started: each plan with
  // its games and their time on this machine, the one that finishes in minutes first and chosen, and the
  // rules of the game's design kept, each with a box to untick; Start starts the chosen plan
  clearErrors();
  const box = $("#explore-estimate");
  if (!state.draft) { say("Open a draft first."); return; }
  const body = exploreBody();
  box.innerHTML = "<p class='meta'>Measuring what each level costs on this draft…</p>";
  const guess = await call("POST", "explore/estimate", body);
  box.innerHTML = "";
  state.explore = null;
  if (!guess.ok) {
    if (guess.field === "keep" && guess.at && guess.at.offered) showKept(box, guess.at.offered, guess.at.rules);
    showError(guess.field, guess.message, guess.at);
    return;
  }
  state.explore = body;
  showKept(box, guess.rules, []);
  showPlans(box, guess);
}

function element(tag, className, text) {
  const made = document.createElement(tag);
  if (className) made.className = className;
  if (text !== undefined) made.textContent = text;
  return made;
}

function showKept(box, rules, refused) {
  // "Kept: [x] points rise with icons within blue; [x] the chits' total 95-105": each rule of the game's
  // design the rows touch, ticked when kept (a rule no design can meet is marked); unticking one asks again
  const line = element("p", "kept");
  line.append(element("b", "", "Kept: "));
  if (!rules.length) line.append(element("span", "meta", "nothing: no rule of the game's design runs over these rows"));
  rules.forEach((rule, i) => {
    const label = element("label", refused.includes(rule.name) ? "invalid" : "");
    const tick = element("input");
    tick.type = "checkbox";
    tick.dataset.keep = rule.name;
    tick.checked = rule.kept;
    label.append(tick, ` ${rule.words}`);
    line.append(label, i < rules.length - 1 ? "; " : "");
  });
  if (rules.length) line.append(element("span", "meta", " (the rules of the game's design these rows touch; untick one to search without it)"));
  box.append(line);
}

function showPlans(box, guess) {
  // each plan as a choice: its time on this machine in bold, its games by level, and how it plays
  const why = guess.why_first ? `${guess.why_first} ` : "";
  box.append(element("p", "plans-head", `Nothing runs until you press Start. ${why}Choose how to search:`));
  guess.plans.forEach((plan, i) => {
    const label = element("label", "plan");
    const pick = element("input");
    pick.type = "radio";
    pick.name = "explore-plan";
    pick.value = plan.name;
    pick.checked = i === 0;
    const cut = plan.text.indexOf(": ");
    label.append(pick, " ", element("b", "", cut < 0 ? plan.text : plan.text.slice(0, cut)),
                 cut < 0 ? "" : `: ${plan.text.slice(cut + 2)}`, element("span", "meta plan-words", plan.words));
    box.append(label);
  });
  box.append(element("p", "meta", "Each time counts every game the plan may play, at the pace measured now: " +
    "its confirmation stops at the first look that decides, and plays nothing when no candidate comes near fair."));
  const start = element("button", "", "Start");
  start.type = "button";
  start.dataset.action = "explore-start";
  const cancel = element("button", "", "Cancel");
  cancel.type = "button";
  cancel.dataset.action = "explore-cancel";
  box.append(start, " ", cancel);
}

function keptNames() {
  return [...document.querySelectorAll("#explore-estimate [data-keep]")].filter((t) => t.checked)
    .map((t) => t.dataset.keep);
}

async function startExplore() {
  const chosen = $("#explore-estimate input[name=explore-plan]:checked");
  const body = { ...state.explore, plan: chosen ? chosen.value : null, keep: keptNames() };
  clearErrors();
  const data = await call("POST", "explore", body);
  if (!data.ok) { showError(data.field, data.message, data.at); return; }
  $("#explore-estimate").innerHTML = "";
  state.explore = null;
  watch(data.job);
}

async function apply(job, elite) {
  const body = elite ? { job, elite, players: players() } : { job, players: players() };
  const data = await call("POST", "apply", body);
  if (!data.ok) { say(data.message); return; }
  state.draft = data.draft;
  await reloadEditor();
  const what = elite ? `the alternative of cell ${elite}` : "the recommendation";
  say(`${data.changed} value(s) of ${what} set in ${data.draft}`, true);
  refresh();  // the card's changes are measured from the draft: they change with it
}

function watch(job) {
  state.job = job;
  refresh();
}

// One loop refreshes the job on the page and the runs list together, from one answer of the server
// (the card and its line in the list are the same look), every second while any job runs.
async function refresh() {
  clearTimeout(state.timer);
  const turn = ++state.turn;
  let busy;
  if (state.job) {
    const data = await call("GET", `jobs/${encodeURIComponent(state.job)}`);
    if (turn !== state.turn) return;  // a newer refresh (another job shown) has taken over
    if (data.html === undefined) { say(data.message); return; }
    $("#live").innerHTML = data.html;
    $("#jobs").innerHTML = data.list;
    busy = data.busy;
  } else {
    const data = await call("GET", "jobs");
    if (turn !== state.turn) return;
    $("#jobs").innerHTML = data.html;
    busy = $("#jobs .job-list[data-busy=yes]") !== null;
  }
  if (busy) state.timer = setTimeout(refresh, 1000);
}

async function jobAction(action, job) {
  const data = await call("POST", `jobs/${encodeURIComponent(job)}/${action}`);
  if (!data.ok) { say(data.message); return; }
  watch(data.job);
}

document.addEventListener("change", (event) => {
  const t = event.target;
  if (t.dataset.keep) {  // a rule of the game's design ticked or unticked: its estimate again
    state.keep = { rows: JSON.stringify(tuneSpace()), names: keptNames() };
    explore();
    return;
  }
  if (t.closest("#tune-form, #run-form") && !t.closest("#explore-estimate") && state.explore) {
    $("#explore-estimate").innerHTML = "";  // the form changed: its estimate is no longer the form's
    state.explore = null;
  }
  if (t.dataset.key) edit(t);
  else if (t.id === "game") showStarts();
  else if (t.id === "players") reloadEditor();
  else if (t.id === "agents" && state.draft) state.skills[state.draft] = t.value;
});

document.addEventListener("click", (event) => {
  const t = event.target.closest("[data-action]");
  if (!t) return;
  event.preventDefault();
  const action = t.dataset.action;
  if (action === "open") openDraft(false);
  else if (action === "reset") openDraft(true);
  else if (action === "bulk") bulk();
  else if (action === "run") start("run");
  else if (action === "compare") start("compare");
  else if (action === "values") start("values");
  else if (action === "tune") tune();
  else if (action === "explore") explore();
  else if (action === "explore-start" && state.explore) startExplore();
  else if (action === "explore-cancel") { $("#explore-estimate").innerHTML = ""; state.explore = null; }
  else if (action === "apply") apply(t.dataset.job);
  else if (action === "apply-elite") apply(t.dataset.job, t.dataset.elite);
  else if (action === "show") watch(t.dataset.job);
  else if (action === "stop" || action === "resume") jobAction(action, t.dataset.job);
});

document.addEventListener("DOMContentLoaded", () => {
  showStarts();
  refresh();
});
