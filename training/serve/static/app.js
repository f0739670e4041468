// braincards serve: the pages (new game, game, replays, study). The server holds the truth;
// this page shows the view it is sent and posts moves that name the step they act on.
"use strict";

const main = document.getElementById("main");
const { Cards } = window;
const { esc } = Cards;
let META = null;
let timer = null;

async function api(path, body) {
  const init = body === undefined ? {} : {
    method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
  };
  const res = await fetch(path, init);
  const data = res.headers.get("content-type")?.includes("json") ? await res.json() : await res.text();
  if (!res.ok) throw new Error(typeof data === "object" ? data.detail : data);
  return data;
}

function parseValue(text) {
  try { return JSON.parse(text); } catch { return text; }
}

// ------------------------------------------------------------------ new game
function newGamePage() {
  const games = META.games;
  main.innerHTML = `<h1>New game</h1><div class="panel"><div class="row">
    <label>Game <select id="game">${games.map((g) => `<option value="${g.id}">${esc(g.title)}</option>`).join("")}</select></label>
    <label>Seed (empty: random) <input id="seed" type="number" min="0" placeholder="random"></label></div>
    <h2>Options</h2><div class="row" id="options"></div>
    <h2>Seats</h2><div class="row" id="seats"></div>
    <p><button class="primary" id="start">Play</button> <span class="error" id="error"></span></p></div>
    <div class="panel" id="learn"><h2>New to a game?</h2><p>Play a short tutorial: a fixed deal where
    the first moves are explained and guided.</p><div class="row">${games.map((g) =>
      `<button class="tutorial-start" data-game="${g.id}">Tutorial: ${esc(g.title)}</button>`).join("")}</div></div>`;
  main.querySelectorAll("button.tutorial-start").forEach((b) => { b.onclick = () => startTutorial(b.dataset.game, "game"); });
  const sel = document.getElementById("game");
  sel.onchange = () => fillOptions(games.find((g) => g.id === sel.value));
  fillOptions(games[0]);
  document.getElementById("start").onclick = startGame;
}

function fillOptions(game) {
  const opts = document.getElementById("options");
  opts.innerHTML = Object.entries(game.options).map(([k, v]) => k === "num_players"
    ? `<label>${k} <input data-opt="${k}" type="number" min="${game.players[0]}" max="${game.players[1]}" value="${v}"></label>`
    : `<label>${k} <input data-opt="${k}" value="${esc(v === null ? "" : JSON.stringify(v).replace(/^"|"$/g, ""))}"></label>`).join("");
  opts.querySelectorAll("[data-opt]").forEach((el) => { el.addEventListener("input", () => { el.dataset.edited = "1"; }); });
  const players = opts.querySelector('[data-opt="num_players"]');
  players.oninput = () => fillSeats(game, Number(players.value));
  fillSeats(game, Number(players.value));
}

function fillSeats(game, n) {
  const list = game.policies.map((p) => `<option>${esc(p)}</option>`).join("");
  document.getElementById("seats").innerHTML = Array.from({ length: Math.max(0, n) }, (_, i) =>
    `<label>player_${i} <input data-seat="${i}" list="policies" value="${i === 0 ? "human" : "heuristic"}"></label>`).join("") +
    `<datalist id="policies">${list}</datalist>`;
}

async function startGame() {
  const body = { game: document.getElementById("game").value, options: {}, seats: [] };
  // only the options the player changed (and the player count): a checkpoint seat then plays at
  // the table it was trained for, and the page says so
  document.querySelectorAll("[data-opt]").forEach((el) => {
    if (el.value !== "" && (el.dataset.opt === "num_players" || el.dataset.edited))
      body.options[el.dataset.opt] = parseValue(el.value);
  });
  document.querySelectorAll("[data-seat]").forEach((el) => body.seats.push(el.value.trim()));
  const seed = document.getElementById("seed").value;
  if (seed !== "") body.seed = Number(seed);
  try {
    const res = await api("/api/games", body);
    location.hash = `#/game/${res.id}`;
  } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
}

// a tutorial game: the server deals it and guides the first moves ("practice" in a study)
async function startTutorial(game, where) {
  try {
    const res = await api(`/api/tutorials/${encodeURIComponent(game)}`, {});
    location.hash = `#/${where}/${res.id}`;
  } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
}

function tutorialHtml(t) {
  const head = t.made < t.guided ? `Tutorial · guided move ${Math.min(t.made + 1, t.guided)} of ${t.guided}` : "Tutorial";
  const back = inStudy() ? `<p><a href="#/" id="tutorial-back">Back to the study</a></p>` : "";
  return `<div class="panel tutorial" id="tutorial"><h2>${esc(head)}</h2>` +
    `${t.say.map((p) => `<p>${esc(p)}</p>`).join("")}${back}</div>`;
}

// ------------------------------------------------------------------ a game
// a study fixes the agents' pace and step mode for everyone (its file says them); free play
// keeps the person's own choice
const inStudy = () => Boolean(META && META.study);
const pace = () => (inStudy() ? META.pace_ms : Number(localStorage.getItem("pace") ?? 600));
const stepMode = () => (inStudy() ? META.step_mode : localStorage.getItem("stepMode") === "1");

async function gamePage(gid, study) {
  main.innerHTML = `<div id="game-view"></div>`;
  try {
    showGame(gid, await api(`/api/games/${gid}`), study);
  } catch (err) {
    main.innerHTML = `<p class="error">${esc(err.message)}</p>`;
  }
}

// the table, drawn from the server's data (cards as fields, never parsed from words): its
// counters, then one line per area or seat, seats by their labels ("you", "partner 1 (...)")
function seatLabel(view, seat) {
  return (view.seats[seat] || {}).label || `seat ${seat}`;
}

function factText([name, value]) {
  return value === true ? name : `${name} ${value}`;
}

function rowHtml(row, view) {
  const own = row.seat !== null && /^player_\d+$/.test(row.label);
  const who = row.seat === null ? "" : seatLabel(view, row.seat);
  const title = own ? who : row.label + (who ? ` (${who})` : "");
  const me = row.seat !== null && (view.seats[row.seat] || {}).agent === view.you;
  const facts = row.facts.map((f) => `<span class="fact">${esc(factText(f))}</span>`).join("");
  const piles = row.piles.map((p) => `<span class="pile-name">${esc(p.name)}</span>` +
    `<span class="cards">${p.cards.length || p.hidden ? Cards.pileSvg(p) : "<span class=\"muted\">-</span>"}</span>`).join("");
  return `<div class="table-line${own && me ? " me" : ""}${row.acting ? " acting" : ""}">` +
    `<span class="row-label">${row.acting ? "&#9654; " : ""}${esc(title)}</span>${facts}${piles}</div>`;
}

function tableHtml(view) {
  const facts = `<div class="table-line table-facts">${view.board.facts.map((f) =>
    `<span class="fact">${esc(factText(f))}</span>`).join(" · ")}</div>`;
  const now = view.over || !view.to_act ? "" : `<div class="table-line now">now: ${esc(view.to_act_label)} ` +
    `${view.to_act_label === "you" ? "decide" : "decides"} (${esc(view.decision.replace(/_/g, " "))})</div>`;
  return facts + view.board.rows.map((r) => rowHtml(r, view)).join("") + now;
}

function statusText(view) {
  if (view.over) return "Game over";
  if (view.moves.length) return `Your turn: ${view.decision.replace("_", " ")}`;
  return `${view.to_act_label} is deciding (${view.decision.replace("_", " ")})`;
}

// a response that comes back after the person left the game's page (a click on Replays while
// an agent's move was on its way) is dropped: only the game the address names is drawn
const onPage = (gid) => decodeURIComponent(location.hash.split("/")[2] || "") === gid;

function showGame(gid, view, study) {
  if (!onPage(gid)) return false;
  clearTimeout(timer);
  const seats = view.seats.map((s) => `<span class="seat${s.agent === view.to_act ? " acting" : ""}">` +
    `${esc(s.label)}</span>`).join(" · ");
  // a guided tutorial decision offers the asked move alone
  const asked = view.tutorial ? view.tutorial.move : null;
  const offered = asked === null ? view.moves : view.moves.filter((m) => m.action === asked);
  const moves = offered.map((m) => `<button class="move${m.action === asked ? " suggested" : ""}" ` +
    `data-action="${m.action}">` +
    `${m.card ? Cards.cardSvg(m.card) : ""}<span>${esc(m.meaning)}</span></button>`).join("");
  const own = inStudy() ? "" : `<label>pace (ms) <input id="pace" type="range" min="0" max="2000" step="100" value="${pace()}"></label>
    <label><span>step by step</span><input id="stepmode" type="checkbox" ${stepMode() ? "checked" : ""}></label>`;
  const next = !inStudy() || stepMode() ? `<button id="next">Next move</button>` : "";
  const controls = view.agents_turn ? `<div class="row">${next}${own}</div>` : "";
  const [, , , number, total] = location.hash.split("/");
  const progress = study ? `<p id="study-progress">Game ${esc(number)} of ${esc(total)}</p>` : "";
  // two columns on a wide screen (the table; what to do now and what just happened), so the
  // table and the moves fit one 1280x800 screen; one column, in the same order, on a phone
  main.innerHTML = `<h1>${esc(view.title)}</h1>${progress}
    ${(view.notes || []).map((n) => `<p class="note">${esc(n)}</p>`).join("")}
    <div class="game-grid"><div class="game-table">
    <div class="panel" id="table">${tableHtml(view)}</div>${legendHtml(view.game)}</div>
    <div class="game-side">${view.tutorial ? tutorialHtml(view.tutorial) : ""}
    <div class="panel"><div class="status${view.moves.length ? " yours" : ""}" id="status">${esc(statusText(view))}</div>
    <div>${seats}</div><div class="muted">step ${view.step}</div></div>
    ${view.over ? resultHtml(view, study) : ""}
    ${view.moves.length ? `<div class="panel"><h2>Your move</h2><div class="moves" id="moves">${moves}</div></div>` : ""}
    ${controls}<p class="error" id="error"></p>
    <div class="panel"><h2>Last moves</h2><ol class="log" start="${Math.max(1, view.step - view.log.length + 1)}">
    ${view.log.map((l) => `<li>${esc(l)}</li>`).join("")}</ol></div></div></div>`;
  main.querySelectorAll("button.move").forEach((b) => { b.onclick = () => play(gid, view, Number(b.dataset.action), study); });
  if (view.agents_turn) wireAgentControls(gid, view, study);
  if (view.over && study) {
    document.getElementById("continue").onclick = () =>
      (META.questionnaire.length ? questionnairePage(study) : studyNext(study));
  }
  return true;
}

function wireAgentControls(gid, view, study) {
  let sent = false;  // one agent move per view: the timer and the button never both send
  const advance = async () => {
    clearTimeout(timer);
    if (sent) return;
    sent = true;
    const button = document.getElementById("next");
    if (button) button.disabled = true;
    await send(gid, `/api/games/${gid}/advance`, { step: view.step }, study);
  };
  const button = document.getElementById("next");
  if (button) button.onclick = advance;
  if (!inStudy()) {
    document.getElementById("pace").oninput = (e) => localStorage.setItem("pace", e.target.value);
    document.getElementById("stepmode").onchange = (e) => {
      localStorage.setItem("stepMode", e.target.checked ? "1" : "0");
      if (!e.target.checked) timer = setTimeout(advance, pace());
    };
  }
  if (!stepMode()) timer = setTimeout(advance, pace());
}

async function play(gid, view, action, study) {
  main.querySelectorAll("button.move").forEach((b) => { b.disabled = true; });
  await send(gid, `/api/games/${gid}/move`, { action, step: view.step }, study);
}

async function send(gid, path, body, study) {
  try {
    showGame(gid, await api(path, body), study);
  } catch (err) {
    const fresh = await api(`/api/games/${gid}`);
    if (showGame(gid, fresh, study)) document.getElementById("error").textContent = err.message;
  }
}

// what each card effect does, in a few words (the rules pages say it in full)
const LEGENDS = {
  the_brain_v0: [
    ["display n/limit", "the stacks on the table: when they reach the limit, the team loses"],
    ["donate", "give one of your cards (hand or domain) to another player's domain"],
    ["cover", "the card goes on top of another stack, so the stacks do not grow"],
    ["take back", "take another stack (with no take back in it) into your domain"],
    ["extra (extra card)", "play one more card as a new stack; its own action is ignored"],
    ["x <object> / x <color> (remove)", "every stack whose top card matches goes to the discard pile"],
  ],
  oh_my_brain_v0: [
    ["play", "one or more cards of one value, higher than the horde's top (0 always)"],
    ["pass", "the horde is discarded; lose a brain; draw 2, keep 1; then you must play"],
    ["mosquito (0)", "may always be played"],
    ["spider (8)", "the next play must be lower than 8"],
    ["mouse (11)", "the horde is discarded and you take a whole new turn"],
    ["marshmallow", "roll the die and do what its face says"],
    ["brains", "lose one per pass, and one per card still held when a round ends"],
  ],
  brilliant_boar_v0: [
    ["draw", "take the pile's top card: you see it once, then only the others do"],
    ["play", "turn a card of your hand face up: it pairs with the pile's top or the middle"],
    ["pair", "both cards are yours (2 points) and you play again"],
    ["miss", "the card stays face up in the middle; your turn ends"],
  ],
};

function legendHtml(game) {
  const items = LEGENDS[game];
  if (!items) return "";
  return `<details class="panel legend" id="legend"><summary>What the cards do</summary><dl>` +
    items.map(([k, v]) => `<dt>${esc(k)}</dt><dd>${esc(v)}</dd>`).join("") + `</dl></details>`;
}

function resultHtml(view, study) {
  const r = view.result;
  const rows = view.seats.map((s, i) => `<tr><td>${esc(s.label)}</td><td>${r.scores[i]}</td>` +
    `<td>${r.returns[i]}</td><td>${r.wins[i] ? "won" : ""}</td></tr>`).join("");
  const next = study ? `<p><button class="primary" id="continue">Continue</button></p>`
    : view.tutorial ? `<p><a href="#/">${inStudy() ? "back to the study" : "new game"}</a></p>`
    : `<p>Saved as replay <a href="#/replays/${encodeURIComponent(view.replay)}">${esc(view.replay)}</a>` +
      ` · <a href="#/">new game</a></p>`;
  const why = view.end_reason ? `<p class="reason" id="end-reason">${esc(view.end_reason)}</p>` : "";
  return `<div class="panel" id="result"><h2>Result${r.truncated ? " (truncated)" : ""}</h2>${why}
    <table class="result"><tr><th>seat</th><th>score</th><th>return</th><th></th></tr>${rows}</table>${next}</div>`;
}

// ------------------------------------------------------------------ replays
let REPLAY = null;

async function replaysPage(name) {
  const list = await api("/api/replays");
  main.innerHTML = `<h1>Replays</h1><div class="panel"><div class="row">
    <label>Open a replay file <input type="file" id="file" accept=".jsonl"></label></div>
    <ul id="replay-list">${list.replays.map((r) => `<li><a href="#/replays/${encodeURIComponent(r.name)}">${esc(r.name)}</a>
      ${esc(r.game)} · ${esc((r.seats || []).join(", "))} · scores ${esc(JSON.stringify(r.scores))}</li>`).join("")}</ul>
    <p class="muted">folder: ${esc(list.folder)}/</p></div><div id="replay"></div>`;
  document.getElementById("file").onchange = async (e) => openReplay(await e.target.files[0].text());
  if (name) openReplay(await api(`/api/replays/${encodeURIComponent(name)}`));
}

async function openReplay(text) {
  REPLAY = { text, step: 0, viewer: null, ticket: 0 };
  await showReplay();
}

async function showReplay() {
  const box = document.getElementById("replay");
  let view;
  const ticket = ++REPLAY.ticket;  // only the latest request's answer is shown
  try {
    view = await api("/api/replay-view", { replay: REPLAY.text, step: REPLAY.step, viewer: REPLAY.viewer });
    if (ticket !== REPLAY.ticket) return;
  } catch (err) {
    box.innerHTML = `<p class="error">${esc(err.message)}</p>`;
    return;
  }
  const viewers = [`<option value="">everything (omniscient)</option>`, ...view.seats.map((s) =>
    `<option value="${s.agent}" ${s.agent === REPLAY.viewer ? "selected" : ""}>${esc(s.label)}</option>`)].join("");
  box.innerHTML = `<div class="panel"><div class="row">
    <button id="first">first</button><button id="back">◀ back</button>
    <span id="replay-step">step ${view.step} / ${view.total}</span>
    <button id="forward">forward ▶</button><button id="last">last</button>
    <label>view as <select id="viewer">${viewers}</select></label></div>
    <p class="status">${esc(view.over ? (view.end_reason || "Game over") : `${view.to_act_label} to decide (${view.decision})`)}</p></div>
    <div class="panel" id="table">${tableHtml(view)}</div>
    <div class="panel"><h2>Moves so far</h2><ol class="log" start="${Math.max(1, view.step - view.log.length + 1)}">
    ${view.log.map((l) => `<li>${esc(l)}</li>`).join("")}</ol></div>`;
  const go = (s) => { REPLAY.step = Math.max(0, Math.min(view.total, s)); showReplay(); };
  document.getElementById("first").onclick = () => go(0);
  document.getElementById("back").onclick = () => go(REPLAY.step - 1);
  document.getElementById("forward").onclick = () => go(REPLAY.step + 1);
  document.getElementById("last").onclick = () => go(view.total);
  document.getElementById("viewer").onchange = (e) => { REPLAY.viewer = e.target.value || null; showReplay(); };
}

// ------------------------------------------------------------------ study
// the study file's texts, shown as paragraphs (plain text: never read as HTML)
const paragraphs = (text) => text.split(/\n\s*\n/).map((p) => `<p>${esc(p)}</p>`).join("");

function studyStartPage() {
  document.getElementById("nav").style.display = "none";
  const consent = META.consent ? `<div class="panel form-text" id="consent"><h2>Consent</h2>${paragraphs(META.consent)}
    <p><label><input type="checkbox" id="agree"> I have read this and agree to take part</label></p></div>` : "";
  const instructions = META.instructions
    ? `<div class="panel form-text" id="instructions"><h2>Instructions</h2>${paragraphs(META.instructions)}</div>` : "";
  main.innerHTML = `<div class="panel center" id="study-start"><h1>Welcome</h1>
    <p>Thank you for taking part. You will play a few card games with computer partners.</p></div>
    ${consent}${instructions}<div class="panel center">
    <p><label>Participant id <input id="participant" autocomplete="off"></label></p>
    <p><button class="primary" id="begin">Start</button></p><p class="error" id="error"></p></div>
    ${META.tutorial ? `<div class="panel center" id="practice"><p>New to the game? Try it first in a short
    tutorial game; it is practice and is not recorded.</p><p><button id="practice-start">Practice game</button></p></div>` : ""}`;
  if (META.tutorial) document.getElementById("practice-start").onclick = () => startTutorial(META.tutorial, "practice");
  document.getElementById("begin").onclick = async () => {
    const agree = document.getElementById("agree");
    try {
      studyGo(await api("/api/study/start", { participant: document.getElementById("participant").value,
                                              consent: agree ? agree.checked : null }));
    } catch (err) {
      document.getElementById("error").textContent = err.message;
    }
  };
}

// after each study game: the study file's questions (Likert items and free text)
function questionnairePage(token) {
  const [, , , number, total] = location.hash.split("/");
  const item = (q) => {
    if (q.free_text) {
      return `<textarea data-item="${esc(q.id)}" rows="3" maxlength="2000"></textarea>`;
    }
    const points = Array.from({ length: q.scale }, (_, i) => i + 1).map((v) =>
      `<label class="point"><input type="radio" name="${esc(q.id)}" value="${v}" data-item="${esc(q.id)}"><span>${v}</span></label>`).join("");
    return `<div class="likert"><span class="muted">${esc(q.low)}</span>${points}<span class="muted">${esc(q.high)}</span></div>`;
  };
  main.innerHTML = `<div class="panel" id="questionnaire"><h2>About game ${esc(number)} of ${esc(total)}</h2>
    ${META.questionnaire.map((q) => `<fieldset class="question"><legend>${esc(q.text)}${q.required ? "" : " (optional)"}</legend>${item(q)}</fieldset>`).join("")}
    <p><button class="primary" id="send-answers">Continue</button></p><p class="error" id="error"></p></div>`;
  document.getElementById("send-answers").onclick = async () => {
    const answers = {};
    for (const q of META.questionnaire) {
      if (q.free_text) {
        answers[q.id] = main.querySelector(`textarea[data-item="${q.id}"]`).value;
      } else {
        const picked = main.querySelector(`input[name="${q.id}"]:checked`);
        answers[q.id] = picked ? Number(picked.value) : null;
      }
    }
    try {
      await api(`/api/study/${token}/answers`, { answers });
      studyNext(token);
    } catch (err) {
      document.getElementById("error").textContent = err.message;
    }
  };
}

// the participant's token stays in this tab's sessionStorage, never in the address
function studyGo(res) {
  if (res.done) { location.hash = "#/thanks"; return; }
  sessionStorage.setItem("study", res.token);
  const hash = `#/study/${res.game}/${res.number}/${res.total}`;
  if (location.hash === hash) route(); else location.hash = hash;
}

// a study page (re)loaded: the server says which game is the participant's now (after a
// restart it is the same game, at the same position)
async function studyResume(token, gid) {
  let res;
  try { res = await api(`/api/study/${token}`); } catch (err) {
    main.innerHTML = `<p class="error">${esc(err.message)}</p>`;
    return;
  }
  if (res.questions) return questionnairePage(token);
  if (res.done || !res.game || res.game !== gid) {
    if (!res.done && !res.game) return studyNext(token);
    return studyGo(res);
  }
  return gamePage(gid, token);
}

async function studyNext(token) {
  try { studyGo(await api(`/api/study/${token}/next`, {})); } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
}

function thanksPage() {
  document.getElementById("nav").style.display = "none";
  main.innerHTML = `<div class="panel center" id="thanks"><h1>Thank you!</h1>
    <p>You have finished all the games. Please tell the researcher you are done.</p></div>`;
}

// ------------------------------------------------------------------ router
async function route() {
  clearTimeout(timer);
  if (META === null) META = await api("/api/meta");
  const parts = location.hash.replace(/^#\/?/, "").split("/").map(decodeURIComponent);
  if (META.study) {
    document.getElementById("nav").style.display = "none";
    const token = sessionStorage.getItem("study");
    if (parts[0] === "study" && token) return studyResume(token, parts[1]);
    if (parts[0] === "thanks") return thanksPage();
    if (parts[0] === "practice" && parts[1] && META.tutorial) return gamePage(parts[1], null);
    return studyStartPage();
  }
  if (parts[0] === "game" && parts[1]) return gamePage(parts[1], null);
  if (parts[0] === "replays") return replaysPage(parts[1]);
  return newGamePage();
}

window.addEventListener("hashchange", route);
route();
