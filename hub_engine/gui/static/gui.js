// The board page of `hub-engine gui`: play against the engine, analyse, keep the game record.
// The page knows no rules: legal moves (with capture paths), positions, FEN and game ends come
// from the server, which also runs this tab's engine (see hub_engine/gui/server.py).

import * as B from "./board.js";
import {Net, upload} from "./net.js";
import * as P from "./panels.js";
import {Tree} from "./tree.js";

const META = JSON.parse(document.getElementById("meta").textContent);
const GEO = {};
for (const [name, g] of Object.entries(META.variants)) GEO[name] = B.makeGeometry(g);
const $ = (id) => document.getElementById(id);
const boardEl = $("board");

const ui = {mode: "play", variant: pref("variant", META.order[0]), notation: pref("notation", "record"),
            flip: false, tree: null, selected: null, choice: null, drag: null, pdn: null, analysis: null};
if (!GEO[ui.variant]) ui.variant = META.order[0];
const an = {on: false, running: false, id: null, node: null, lines: [], shown: [], table: null, stopAt: null,
            drawQueued: false};
const game = {on: false, user: "white", engine: "black", skill: 20, tc: null, ponder: false,
              clocks: {white: 0, black: 0}, turnAt: 0, head: null, searchId: null, ponderId: null,
              ponderMove: null, lastMove: null, score: null, reason: null, timer: null};
const edit = {position: null, piece: "wm", side: "white", back: "play"};

function pref(name, fallback) {
  try { return localStorage.getItem("hub-engine-gui-" + name) || fallback; } catch (e) { return fallback; }
}
function savePref(name, value) {
  try { localStorage.setItem("hub-engine-gui-" + name, value); } catch (e) { /* no storage */ }
}
function geo() { return GEO[ui.variant]; }
function other(side) { return side === "white" ? "black" : "white"; }
function now() { return performance.now(); }
function moveText(m) { return B.pathText(geo(), m, ui.notation); }
function hubText(text) { return B.moveText(geo(), text, ui.notation); }

// --- messages to the user -------------------------------------------------------------------------
function notice(text, cls = "") {
  const li = document.createElement("li");
  li.textContent = text;
  if (cls) li.className = cls;
  const list = $("notices");
  list.prepend(li);
  while (list.children.length > 6) list.lastChild.remove();
}
function message(text, ok = false) {
  const el = $("message");
  el.textContent = text || "";
  el.hidden = !text;
  el.classList.toggle("ok", ok);
}
function overlay(text) {
  $("overlay-text").textContent = text;
  $("overlay").hidden = false;
}

// --- the connection -------------------------------------------------------------------------------
const net = new Net({
  hello: () => {},
  engine: onEngine,
  info: onInfo,
  done: onDone,
  table: (msg) => {
    if (msg.id !== an.id) return;
    an.table = msg.text;
    renderAnalysis();
  },
  error: (msg) => {
    if (msg.id != null && msg.id === an.id) {
      an.running = false;
      renderAnalysis();
    }
    if (msg.id != null && msg.id === game.searchId) game.searchId = null;
    message(msg.message);
  },
  refused: (msg) => overlay(msg.message),
  closed: () => {
    stopClock();
    overlay("The connection to the board's server is closed (was `hub-engine gui` stopped?). " +
            "Start it again and open the address it prints.");
  },
});

function onEngine(msg) {
  const el = $("engine");
  el.dataset.state = msg.state;
  if (msg.state === "starting") el.textContent = "engine: starting…";
  else if (msg.state === "ready") {
    el.textContent = `engine: ${msg.name} ${msg.version}`.trim();
    el.dataset.pid = msg.pid ?? "";
    if (msg.restarted) notice("The engine is running again.");
  } else if (msg.state === "crashed") {
    el.textContent = "engine: restarting…";
    notice(`The engine stopped unexpectedly: ${msg.message}.`, "warn");
  } else if (msg.state === "idle") {
    el.textContent = "engine: stopped while idle";
    game.ponderId = null;
    if (an.running) { an.running = false; renderAnalysis(); }
    notice(`${cap(msg.message)}.`);
  } else if (msg.state === "failed") {
    el.textContent = "engine: failed";
    notice(`${cap(msg.message)}.`, "warn");
  } else if (msg.state === "message") {
    notice(`${cap(msg.message)}.`, "warn");
  }
}
function cap(s) { return B.cap(s); }

// --- positions from the server ----------------------------------------------------------------
function stateOf(node) {
  if (node.state) return Promise.resolve(node.state);
  if (!node.pending) {
    node.pending = net.request({type: "state", variant: node.tree.variant, start: node.tree.start,
                                moves: node.moves()})
      .then((s) => { node.state = s; return s; })
      .finally(() => { node.pending = null; });
  }
  return node.pending;
}

function newTree(variant, state) {
  ui.variant = variant;
  $("variant").value = variant;
  fillNotations();
  const t = new Tree(variant, state.position, GEO[variant].first, state.side);
  t.root.state = state;
  ui.tree = t;
  game.endNode = null;
  ui.selected = ui.choice = null;
  ui.analysis = null;
  $("graph").hidden = true;
  $("record-title").textContent = "Game";
  return t;
}

async function positionTree(variant, text) {
  const st = await net.request({type: "position", variant, text});
  newTree(variant, st);
  await goTo(ui.tree.root);
}

async function goTo(node) {
  ui.tree.current = node;
  ui.selected = ui.choice = null;
  try {
    await stateOf(node);
  } catch (e) {
    message(e.message);
    return;
  }
  if (ui.tree.current !== node) return;
  render();
  if (an.on) analyseCurrent();
}

function step(where) {
  const t = ui.tree, n = t.current;
  const to = {first: t.root, prev: n.parent, next: t.next(n), last: t.end(n)}[where];
  if (to && to !== n) goTo(to);
}

// --- drawing ---------------------------------------------------------------------------------------
function render() {
  if (!ui.tree) return;
  drawBoard();
  renderMoves();
  renderStatus();
  renderChoice();
  renderAnalysis();
  renderNodeInfo();
  renderFen();
  renderClocks();
  if (!document.documentElement.dataset.ready) {
    document.documentElement.dataset.ready = "1";
    if (performance.mark) performance.mark("gui-ready");
  }
}

function targetsOf(from) {
  const st = ui.tree.current.state;
  return st ? [...new Set(st.legal.filter((m) => m.from === from).map((m) => m.to))] : [];
}

function drawBoard() {
  const g = geo();
  if (ui.mode === "edit") {
    boardEl.innerHTML = B.boardSvg(g, edit.position.join(""), {flip: ui.flip, notation: ui.notation});
    boardEl.dataset.position = edit.position.join("");
    boardEl.dataset.variant = ui.variant;
    return;
  }
  const node = ui.tree.current, st = node.state;
  if (!st) return;
  const opts = {flip: ui.flip, notation: ui.notation, marks: [], dots: [], crosses: [], arrows: [],
                hidden: []};
  if (node.move) opts.marks.push([node.move.from, "last"], [node.move.to, "last"]);
  if (ui.choice) {
    const squares = choiceSquares();
    for (const k of squares) opts.marks.push([k, "choice"]);
    opts.marks.push([ui.choice.from, "sel"]);
  } else if (ui.selected) {
    opts.marks.push([ui.selected, "sel"]);
    opts.dots = targetsOf(ui.selected);
  }
  if (ui.drag && ui.drag.moved) opts.hidden.push(ui.drag.from);
  if (an.on && an.node === node && !ui.choice) {
    an.shown.forEach((info, k) => {
      if (info && info.pv.length) opts.arrows.push({from: info.pv[0].from, to: info.pv[0].to, cls: k ? `line${k + 1}` : "line"});
    });
    opts.arrows.reverse();
  } else if (node.ann && node.ann.best) {
    const best = B.parseHubMove(g, node.ann.best);
    if (best) opts.arrows.push({from: best.from, to: best.to, cls: "best"});
  }
  boardEl.innerHTML = B.boardSvg(g, st.position, opts);
  boardEl.dataset.node = String(node.id);
  boardEl.dataset.variant = ui.tree.variant;
  boardEl.dataset.position = st.position;
  boardEl.dataset.side = st.side;
}

function renderMoves() {
  const box = $("moves");
  box.innerHTML = ui.tree.html(moveText) || '<span class="hint">No move yet.</span>';
  const cur = box.querySelector(`.mv[data-id="${ui.tree.current.id}"]`);
  if (cur) {
    cur.classList.add("cur");
    if (cur.offsetTop < box.scrollTop || cur.offsetTop > box.scrollTop + box.clientHeight - 24) {
      box.scrollTop = cur.offsetTop - box.clientHeight / 2;
    }
  }
  $("record-result").textContent = ui.tree.result || "";
}

function renderStatus() {
  const el = $("status"), st = ui.tree.current.state;
  let text = "", over = false;
  if (ui.mode === "edit") text = "Editing the position";
  else if (game.on) {
    const head = game.head.state;
    if (ui.tree.current !== game.head) text = "Viewing an earlier position (End: back to the game)";
    else if (head && head.side === game.user) text = `Your move (${cap(game.user)})`;
    else text = "The engine is thinking…";
  } else if (game.endNode && ui.tree.current === game.endNode) {
    text = `${ui.tree.result}: ${game.reason}`;
    over = true;
  } else if (st && st.result) {
    text = `${st.result}: ${st.reason}`;
    over = true;
  } else if (st) text = `${cap(st.side)} to move`;
  el.textContent = text;
  el.classList.toggle("over", over);
  el.dataset.result = over ? (game.endNode === ui.tree.current ? ui.tree.result : st.result) : "";
}

function renderFen() {
  const st = ui.tree.current.state, box = $("fen");
  if (st && document.activeElement !== box) box.value = st.fen;
}

function renderNodeInfo() {
  const node = ui.tree.current, box = $("nodeinfo");
  const html = node.ann || node.moveAnn ? P.nodeInfoHtml(geo(), ui.notation, node, hubText) : "";
  box.innerHTML = html;
  box.hidden = !html;
  if (ui.analysis && ui.analysis.main) {
    const i = ui.analysis.main.indexOf(node);
    const svg = $("graph").querySelector("svg.graph");
    if (svg && i >= 0) B.moveCursor(svg, i, ui.analysis.main.length);
  }
  if (!an.on) setBar(node.ann && node.ann.score != null ? B.whiteView(node.ann.score, node.ann.side) : null);
}

function setBar(white) {
  const bar = $("evalbar"), part = $("evalbar-black");
  bar.classList.toggle("off", white == null);
  const black = 1 - B.barShare(white);
  part.style.height = `${(black * 100).toFixed(1)}%`;
  part.style.top = ui.flip ? "auto" : "0";
  part.style.bottom = ui.flip ? "0" : "auto";
  bar.dataset.score = white == null ? "" : String(white);
}

// --- moving pieces ---------------------------------------------------------------------------------
function canMove() {
  if (ui.mode === "edit") return false;
  const node = ui.tree.current, st = node.state;
  if (!st || !st.legal.length || st.result) return false;
  if (game.on) return node === game.head && st.side === game.user && game.searchId == null;
  return true;
}

function squareOf(e) {
  const svg = boardEl.querySelector("svg");
  if (!svg) return null;
  const pt = svg.createSVGPoint();
  pt.x = e.clientX;
  pt.y = e.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  return B.squareAt(geo(), p.x, p.y, ui.flip);
}

boardEl.addEventListener("pointerdown", (e) => {
  if (e.button !== 0) return;
  const k = squareOf(e);
  if (ui.mode === "edit") {
    if (k) editSquare(k);
    return;
  }
  if (!k || !canMove()) return;
  if (ui.choice) {
    chooseSquare(k);
    return;
  }
  if (ui.selected && targetsOf(ui.selected).includes(k)) {
    tryMove(ui.selected, k);
    return;
  }
  if (targetsOf(k).length) {
    ui.selected = k;
    ui.drag = {from: k, x: e.clientX, y: e.clientY, moved: false};
    boardEl.setPointerCapture(e.pointerId);
  } else {
    ui.selected = null;
  }
  drawBoard();
});

boardEl.addEventListener("pointermove", (e) => {
  const d = ui.drag;
  if (!d) return;
  if (!d.moved && Math.hypot(e.clientX - d.x, e.clientY - d.y) < 6) return;
  if (!d.moved) {
    d.moved = true;
    drawBoard();
  }
  const svg = boardEl.querySelector("svg");
  const pt = svg.createSVGPoint();
  pt.x = e.clientX;
  pt.y = e.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  let ghost = svg.querySelector("g.drag");
  const ch = ui.tree.current.state.position[d.from];
  if (!ghost) {
    svg.insertAdjacentHTML("beforeend", `<g class="drag">${B.pieceSvg(geo(), ch, 0, 0)}</g>`);
    ghost = svg.querySelector("g.drag");
  }
  ghost.setAttribute("transform", `translate(${p.x.toFixed(1)} ${p.y.toFixed(1)})`);
});

boardEl.addEventListener("pointerup", (e) => {
  const d = ui.drag;
  ui.drag = null;
  if (!d || !d.moved) return;
  const k = squareOf(e);
  if (k && k !== d.from && targetsOf(d.from).includes(k)) tryMove(d.from, k);
  else drawBoard();
});

function tryMove(from, to) {
  const st = ui.tree.current.state;
  const found = st.legal.filter((m) => m.from === from && m.to === to);
  if (found.length === 1) {
    playMove(found[0]);
  } else if (found.length > 1) {
    ui.choice = {from, to, moves: found};
    ui.selected = null;
    drawBoard();
    renderChoice();
  }
}

// The squares that tell a choice's captures apart: pieces taken and squares landed on by some
// but not all of them.
function choiceSquares() {
  const moves = ui.choice.moves, count = new Map();
  for (const m of moves) {
    for (const k of new Set([...m.captured, ...m.path.slice(1, -1)])) count.set(k, (count.get(k) || 0) + 1);
  }
  return [...count.entries()].filter(([, n]) => n < moves.length).map(([k]) => k);
}

function chooseSquare(k) {
  const c = ui.choice;
  const left = c.moves.filter((m) => m.captured.includes(k) || m.path.slice(1, -1).includes(k));
  if (left.length === 1) playMove(left[0]);
  else if (left.length > 1 && left.length < c.moves.length) {
    c.moves = left;
    drawBoard();
    renderChoice();
  }
}

function renderChoice() {
  const box = $("choice");
  if (!ui.choice) {
    box.hidden = true;
    box.innerHTML = "";
    return;
  }
  const g = geo();
  const buttons = ui.choice.moves.map((m, i) => {
    const path = m.path.map((k) => B.squareName(g, k, ui.notation)).join(m.capture ? "×" : "-");
    const taken = m.captured.map((k) => B.squareName(g, k, ui.notation)).join(", ");
    return `<button data-choice="${i}" title="takes ${B.esc(taken)}">${B.esc(path)} ` +
           `<span class="hint">takes ${B.esc(taken)}</span></button>`;
  }).join("");
  box.innerHTML = `<div>${ui.choice.moves.length} captures go from here to there: click a piece ` +
                  "to take or a square to pass through (marked), or choose one:</div>" + buttons +
                  ' <button data-choice="cancel">cancel</button>';
  box.hidden = false;
}

$("choice").addEventListener("click", (e) => {
  const b = e.target.closest("[data-choice]");
  if (!b || !ui.choice) return;
  if (b.dataset.choice === "cancel") {
    ui.choice = null;
    drawBoard();
    renderChoice();
  } else {
    playMove(ui.choice.moves[+b.dataset.choice]);
  }
});

function playMove(m) {
  ui.selected = ui.choice = null;
  renderChoice();
  const node = ui.tree.add(ui.tree.current, m, game.on);
  if (game.on) userMoved(node);
  else goTo(node);
}

// --- analysis --------------------------------------------------------------------------------------
function analyseCurrent() {
  const node = ui.tree.current;
  an.node = node;
  an.lines = [];
  an.shown = [];
  an.table = null;
  an.stopAt = null;
  if (!node.state || !node.state.legal.length) {
    an.running = false;
    an.id = null;
    renderAnalysis();
    return;
  }
  an.id = net.id();
  an.running = true;
  net.send({type: "go", id: an.id, mode: "analyze", variant: ui.tree.variant, start: ui.tree.start,
            moves: node.moves(), multipv: +$("multipv").value});
  renderAnalysis();
}

function startAnalysis() {
  if (game.on) return;
  an.on = true;
  analyseCurrent();
  drawBoard();
}

function stopAnalysis() {
  an.on = false;
  if (an.running && an.id != null) {
    an.stopAt = now();
    net.send({type: "stop", id: an.id});
  }
  renderAnalysis();
  drawBoard();
  setBar(null);
}

function onInfo(msg) {
  if (msg.id === an.id && an.running) {
    an.lines[msg.multipv - 1] = msg;
    an.stats = msg;
    if (!an.frame) {
      an.frame = requestAnimationFrame(() => {
        an.frame = null;
        renderAnalysis();
        if (ui.tree.current === an.node) drawBoard();
      });
    }
  } else if (game.on && (msg.id === game.searchId) && msg.multipv === 1) {
    game.score = msg.score;
  }
}

function onDone(msg) {
  if (msg.id === an.id) {
    an.running = false;
    if (an.stopAt != null) {
      $("analyse-toggle").dataset.stopMs = (now() - an.stopAt).toFixed(1);
      an.stopAt = null;
    }
    renderAnalysis();
    return;
  }
  if (game.on && msg.id === game.searchId) engineMoved(msg);
}

function renderAnalysis() {
  const btn = $("analyse-toggle");
  const state = an.running ? "running" : (an.on ? "waiting" : "stopped");
  btn.dataset.state = state;
  btn.textContent = an.on ? "Stop" : "Start analysis";
  btn.disabled = game.on;
  const side = an.node && an.node.state ? an.node.state.side : "white";
  // a line's new move may be another line's older one until that line is sent again: the
  // page shows the last set of lines that repeats no move (kept when stopped)
  const firsts = an.lines.filter(Boolean).map(l => l.pv.length ? l.pv[0].hub : "");
  if (new Set(firsts).size === firsts.length) an.shown = an.lines.slice();
  const lines = an.node === ui.tree.current ? an.shown : [];
  const body = $("lines").querySelector("tbody");
  body.innerHTML = P.linesHtml(geo(), ui.notation, lines, side);
  $("lines").dataset.count = String(lines.filter(Boolean).length);
  const best = lines[0];
  $("search-stats").textContent = an.on ? (an.running ? P.statsText(an.stats && an.stats.id === an.id ? an.stats : null)
                                                      : "no move to analyse") : "";
  const tr = $("table-result");
  tr.hidden = !(an.on && an.table);
  tr.textContent = an.table || "";
  if (an.on) setBar(best ? B.whiteView(best.score, side) : null);
}

$("analyse-toggle").addEventListener("click", () => {
  if (an.on) stopAnalysis();
  else startAnalysis();
});
$("multipv").addEventListener("change", () => { if (an.on) analyseCurrent(); });
// on pointerdown: the lines are drawn again with every `info`, so a click's up may not land on
// the element its down did
$("lines").addEventListener("pointerdown", (e) => {
  const el = e.target.closest(".pv");
  if (!el || !an.node) return;
  const info = an.shown[+el.dataset.k];
  if (!info) return;
  let node = an.node;
  for (const m of info.pv.slice(0, +el.dataset.j + 1)) node = ui.tree.add(node, m);
  goTo(node);
});

// --- a game against the engine -----------------------------------------------------------------
function readTimeControl() {
  const kind = document.querySelector("input[name=tc]:checked").value;
  if (kind === "move") {
    const s = Math.max(0.05, Math.min(600, +$("movetime").value || 1));
    return {kind, moveTime: s};
  }
  const minutes = Math.max(0.1, Math.min(600, +$("minutes").value || 5));
  const inc = Math.max(0, Math.min(60, +$("increment").value || 0));
  return {kind, base: minutes * 60000, inc: inc * 1000};
}

async function startGame(e) {
  e.preventDefault();
  if (an.on) stopAnalysis();
  const from = document.querySelector("input[name=from]:checked").value;
  const text = from === "board" && ui.tree.current.state ? ui.tree.current.state.position : "start";
  let st;
  try {
    st = await net.request({type: "position", variant: ui.variant, text});
  } catch (err) {
    message(err.message);
    return;
  }
  if (st.result) {
    message(`The game cannot start from here: ${st.reason}.`);
    return;
  }
  message("");
  newTree(ui.variant, st);
  game.user = document.querySelector("input[name=side]:checked").value;
  game.engine = other(game.user);
  game.skill = +$("skill").value;
  game.tc = readTimeControl();
  game.ponder = $("ponder").checked;
  const base = game.tc.kind === "clock" ? game.tc.base : 0;
  game.clocks = {white: base, black: base};
  game.head = ui.tree.root;
  game.on = true;
  game.reason = null;
  game.searchId = game.ponderId = game.ponderMove = game.movedAt = null;
  ui.flip = game.user === "black";
  ui.tree.tags = {White: game.user === "white" ? "You" : engineName(),
                  Black: game.user === "black" ? "You" : engineName()};
  $("newgame").hidden = true;
  $("game").hidden = false;
  $("game-note").textContent = game.tc.kind === "clock"
    ? `${game.tc.base / 60000} min + ${game.tc.inc / 1000} s, engine skill ${game.skill}`
    : `${game.tc.moveTime} s a move, engine skill ${game.skill}`;
  setModeButtons();
  game.turnAt = now();
  startClock();
  await goTo(ui.tree.root);
  if (st.side === game.engine) engineTurn(null);
}

function engineName() {
  const el = $("engine");
  return el.dataset.state === "ready" ? el.textContent.replace(/^engine: /, "") : "hub-engine";
}

function level() {
  if (game.tc.kind === "move") return {move_time: game.tc.moveTime};
  const left = Math.max(0, game.clocks[game.engine] - game.tc.inc) / 1000;
  return {time: Math.min(36000, left), inc: game.tc.inc / 1000};
}

function engineTurn(userMove) {
  const id = net.id();
  const msg = {type: "go", id, mode: "think", variant: ui.tree.variant, start: ui.tree.start,
               moves: game.head.moves(), skill: game.skill, ponder: game.ponder, level: level()};
  if (game.ponderId != null && userMove && userMove === game.ponderMove) msg.ponder_id = game.ponderId;
  game.ponderId = game.ponderMove = null;
  game.searchId = id;
  game.turnAt = now();
  net.send(msg);
  renderStatus();
}

function spend(side) {
  const used = now() - game.turnAt;
  if (game.tc.kind === "clock") game.clocks[side] += game.tc.inc - used;
  else game.clocks[side] += used;          // a move-time game shows the time each side used
}

function engineMoved(msg) {
  game.searchId = null;
  spend(game.engine);
  if (!msg.move) {
    endGame(game.user === "white" ? "1-0" : "0-1", msg.error || "the engine gave no move");
    return;
  }
  const follow = ui.tree.current === game.head;
  const node = ui.tree.add(game.head, msg.move, true);
  node.state = msg.state;
  game.head = node;
  game.turnAt = now();
  game.lastReply = msg.engine_ms;
  if (node.state.result) {
    endGame(node.state.result, node.state.reason);
  } else if (game.ponder && msg.ponder) {
    game.ponderMove = msg.ponder;
    game.ponderId = net.id();
    const lv = game.tc.kind === "move" ? {move_time: game.tc.moveTime}
      : {time: Math.max(0, game.clocks[game.engine] - game.tc.inc) / 1000, inc: game.tc.inc / 1000};
    net.send({type: "go", id: game.ponderId, mode: "ponder", variant: ui.tree.variant,
              start: ui.tree.start, moves: [...node.moves(), msg.ponder], skill: game.skill,
              ponder: true, level: lv});
  }
  const drawn = follow ? goTo(node) : Promise.resolve(render());
  const movedAt = game.movedAt;
  game.movedAt = null;
  drawn.then(() => {
    // the user's move to the reply on the board, and the engine's part of it (from `go` to
    // `done` as the server saw them): kept for `tests/gui/figures.py`
    if (movedAt != null) timings.push({total: now() - movedAt, engine: msg.engine_ms});
    if (timings.length > 200) timings.shift();
  });
}

const timings = window.hubEngineTimings = [];

async function userMoved(node) {
  game.movedAt = now();
  spend(game.user);
  game.head = node;
  game.turnAt = now();
  await goTo(node);
  if (!game.on) return;
  if (node.state.result) endGame(node.state.result, node.state.reason);
  else engineTurn(node.move.hub);
}

function endGame(result, reason) {
  for (const id of [game.searchId, game.ponderId]) if (id != null) net.send({type: "stop", id});
  game.on = false;
  game.searchId = game.ponderId = null;
  game.reason = reason;
  game.endNode = game.head;
  ui.tree.result = result;
  ui.tree.tags.Result = result;
  stopClock();
  $("newgame").hidden = false;
  $("game").hidden = true;
  setModeButtons();
  notice(`Game over: ${result}, ${reason}.`);
  render();
}

function takeBack() {
  if (!game.on) return;
  if (game.searchId != null) {
    net.send({type: "stop", id: game.searchId});
    game.searchId = null;
  }
  if (game.ponderId != null) {
    net.send({type: "stop", id: game.ponderId});
    game.ponderId = game.ponderMove = null;
  }
  let n = game.head;
  do { n = n.parent; } while (n && n.state && n.state.side !== game.user);
  if (!n) return;
  game.head = n;
  game.turnAt = now();
  goTo(n);
}

async function offerDraw() {
  if (!game.on || game.head.state.side !== game.user || game.searchId != null) return;
  $("offer-draw").disabled = true;
  try {
    const a = await net.request({type: "draw", variant: ui.tree.variant, start: ui.tree.start,
                                 moves: game.head.moves(), engine_side: game.engine, skill: game.skill});
    if (!game.on) return;
    if (a.accept) endGame("1/2-1/2", "draw agreed");
    else notice(`The engine declines the draw (${a.plies < 40 ? "the game is young" : "it sees " +
                B.fmtScore(B.whiteView(a.score, game.engine))}).`);
  } catch (err) {
    message(err.message);
  } finally {
    $("offer-draw").disabled = false;
  }
}

function resign() {
  if (!game.on) return;
  endGame(game.user === "white" ? "0-1" : "1-0", `${cap(game.user)} resigned`);
}

function startClock() {
  stopClock();
  game.timer = setInterval(renderClocks, 100);
}
function stopClock() {
  if (game.timer) clearInterval(game.timer);
  game.timer = null;
}

function renderClocks() {
  if (!game.tc) return;
  const moving = game.on && game.head && game.head.state ? game.head.state.side : null;
  for (const side of ["white", "black"]) {
    let t = game.clocks[side];
    if (side === moving) t += game.tc.kind === "clock" ? -(now() - game.turnAt) : now() - game.turnAt;
    const el = $(`clock-${side}`);
    el.querySelector(".who").textContent = `${cap(side)} (${side === game.user ? "you" : "engine"})`;
    el.querySelector(".time").textContent = P.fmtClock(t);
    el.classList.toggle("active", side === moving);
    el.classList.toggle("low", game.tc.kind === "clock" && t < 10000);
    if (game.on && side === moving && game.tc.kind === "clock" && t <= 0) {
      endGame(side === "white" ? "0-1" : "1-0", `${cap(side)} lost on time`);
      return;
    }
  }
}

$("newgame").addEventListener("submit", startGame);
$("skill").addEventListener("input", () => { $("skill-out").textContent = $("skill").value; });
$("takeback").addEventListener("click", takeBack);
$("offer-draw").addEventListener("click", offerDraw);
$("resign").addEventListener("click", resign);

// --- the position editor -----------------------------------------------------------------------
function pieceChar(piece) {
  if (piece === "e") return "e";
  const colour = piece[0] === "w" ? "white" : "black", king = piece[1] === "k";
  const first = colour === geo().first;
  return first ? (king ? "W" : "w") : (king ? "B" : "b");
}

function editSquare(k) {
  const ch = pieceChar(edit.piece);
  edit.position[k] = edit.position[k] === ch ? "e" : ch;
  drawBoard();
}

function enterEdit() {
  const st = ui.tree.current.state;
  edit.position = (st ? st.position : "W" + "e".repeat(32)).split("");
  edit.side = st ? st.side : "white";
  document.querySelector(`input[name=edit-side][value=${edit.side}]`).checked = true;
}

async function editDone() {
  const side = document.querySelector("input[name=edit-side]:checked").value;
  const text = (side === geo().first ? "W" : "B") + edit.position.slice(1).join("");
  try {
    const st = await net.request({type: "position", variant: ui.variant, text});
    message("");
    newTree(ui.variant, st);
    setMode(edit.back === "edit" ? "play" : edit.back);
  } catch (err) {
    message(err.message);
  }
}

$("palette").addEventListener("click", (e) => {
  const b = e.target.closest("[data-piece]");
  if (!b) return;
  edit.piece = b.dataset.piece;
  for (const x of $("palette").querySelectorAll("button")) x.classList.toggle("on", x === b);
});
$("edit-clear").addEventListener("click", () => {
  edit.position = ("W" + "e".repeat(32)).split("");
  drawBoard();
});
$("edit-start").addEventListener("click", async () => {
  const st = await net.request({type: "position", variant: ui.variant, text: "start"});
  edit.position = st.position.split("");
  drawBoard();
});
$("edit-done").addEventListener("click", editDone);
$("edit-cancel").addEventListener("click", () => setMode(edit.back === "edit" ? "play" : edit.back));

// --- modes, variant, notation, keys ------------------------------------------------------------
function setMode(mode) {
  if (game.on && mode !== "play") return;
  if (mode === "edit") {
    if (an.on) stopAnalysis();
    edit.back = ui.mode;
    enterEdit();
  }
  ui.mode = mode;
  for (const name of ["play", "analyse", "edit"]) $(`panel-${name}`).hidden = name !== mode;
  setModeButtons();
  render();
}

function setModeButtons() {
  for (const b of $("modes").querySelectorAll("button")) {
    b.classList.toggle("on", b.dataset.mode === ui.mode);
    b.disabled = game.on && b.dataset.mode !== "play";
  }
  $("variant").disabled = game.on;
}

$("modes").addEventListener("click", (e) => {
  const b = e.target.closest("[data-mode]");
  if (b) setMode(b.dataset.mode);
});

function fillNotations() {
  const g = geo();
  $("notation").innerHTML = g.notations.map(([key, title]) => (
    `<option value="${key}"${key === B.notationOf(g, ui.notation) ? " selected" : ""}>${B.esc(title)}</option>`)).join("");
}

$("variant").innerHTML = META.order.map((v) => `<option value="${v}">${v}</option>`).join("");
$("variant").value = ui.variant;
$("variant").addEventListener("change", async () => {
  const v = $("variant").value;
  savePref("variant", v);
  if (an.on) stopAnalysis();
  if (ui.mode === "edit") {
    ui.variant = v;
    fillNotations();
    const st = await net.request({type: "position", variant: v, text: "start"});
    edit.position = st.position.split("");
    drawBoard();
    return;
  }
  await positionTree(v, "start");
});
$("notation").addEventListener("change", () => {
  ui.notation = $("notation").value;
  savePref("notation", ui.notation);
  render();
});

document.querySelector(".controls").addEventListener("click", (e) => {
  const b = e.target.closest("[data-go]");
  if (!b) return;
  if (b.dataset.go === "flip") {
    ui.flip = !ui.flip;
    render();
  } else if (ui.mode !== "edit") {
    step(b.dataset.go);
  }
});

$("moves").addEventListener("click", (e) => {
  const mv = e.target.closest(".mv[data-id]");
  if (mv && ui.mode !== "edit") goTo(ui.tree.byId.get(+mv.dataset.id));
});

document.addEventListener("keydown", (e) => {
  if (e.altKey || e.ctrlKey || e.metaKey) return;
  if (e.target.closest && e.target.closest("input, textarea, select")) return;
  const keys = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"};
  if (keys[e.key] && ui.mode !== "edit") {
    e.preventDefault();
    step(keys[e.key]);
  } else if (e.key === "f" || e.key === "F") {
    ui.flip = !ui.flip;
    render();
  } else if (e.key === "Escape") {
    ui.selected = ui.choice = null;
    renderChoice();
    drawBoard();
  }
});

document.addEventListener("visibilitychange", () => { if (!document.hidden) net.send({type: "wake"}); });
window.addEventListener("focus", () => net.send({type: "wake"}));

// --- records: FEN, PDN, analysis files ---------------------------------------------------------
$("fen-copy").addEventListener("click", async () => {
  const text = $("fen").value;
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    $("fen").select();
    document.execCommand("copy");
  }
  message("FEN copied.", true);
});
$("fen-set").addEventListener("click", async () => {
  if (game.on) return;
  try {
    await positionTree(ui.variant, $("fen").value.trim());
    message("");
  } catch (err) {
    message(err.message);
  }
});
$("fen").addEventListener("keydown", (e) => { if (e.key === "Enter") $("fen-set").click(); });

$("pdn-open").addEventListener("click", () => { $("pdnbox").hidden = !$("pdnbox").hidden; });
$("pdn-close").addEventListener("click", () => { $("pdnbox").hidden = true; });
$("pdn-load-text").addEventListener("click", () => {
  const text = $("pdn-text").value;
  if (!text.trim()) { message("Paste a PDN game first."); return; }
  openPdn(new Blob([text]), "pasted.pdn");
});
$("pdn-file").addEventListener("change", () => {
  const f = $("pdn-file").files[0];
  if (f) openPdn(f, f.name);
  $("pdn-file").value = "";
});

function tooBig(file, name) {
  if (file.size > META.max_upload) {
    message(`${name} is ${(file.size / 1e6).toFixed(1)} MB: files up to ` +
            `${Math.floor(META.max_upload / 1048576)} MB can be opened.`);
    return true;
  }
  return false;
}

async function openPdn(body, name) {
  if (game.on || tooBig(body, name)) return;
  message(`Reading ${name}…`, true);
  try {
    const data = await upload(body, {kind: "pdn", name, variant: ui.variant});
    ui.pdn = data;
    const read = data.games.filter((gm) => !gm.error).length;
    const assumed = data.games.some((gm) => gm.assumed) ? ` (games without a GameType tag read as ${data.variant})` : "";
    message(`${name}: ${data.games.length} game${data.games.length === 1 ? "" : "s"}, ` +
            `${read} read without error${assumed}.`, true);
    if (data.games.length === 1) {
      await loadPdnGame(1);
    } else {
      showChooser(`${name}: choose a game`, P.pdnChooser(data), "pdn");
    }
  } catch (err) {
    message(err.message);
  }
}

async function loadPdnGame(number) {
  try {
    const gm = await net.request({type: "pdn_game", upload: ui.pdn.upload, number});
    loadMoves(gm.variant, gm.start, gm.moves);
    ui.tree.tags = gm.tags;
    ui.tree.result = gm.result && gm.result !== "*" ? gm.result : null;
    $("record-title").textContent = [gm.tags.White, gm.tags.Black].every(Boolean)
      ? `${gm.tags.White} - ${gm.tags.Black}` : `Game ${gm.number}`;
    if (gm.errors.length) message(gm.errors[0]);
    await goTo(ui.tree.root);
  } catch (err) {
    message(err.message);
  }
}

function loadMoves(variant, start, moves) {
  const side = start[0] === "W" ? GEO[variant].first : other(GEO[variant].first);
  newTree(variant, {position: start, side});
  ui.tree.root.state = null;
  let n = ui.tree.root;
  for (const m of moves) n = ui.tree.add(n, m);
}

$("pdn-save").addEventListener("click", async () => {
  try {
    const tags = Object.assign({}, ui.tree.tags);
    if (ui.tree.result) tags.Result = ui.tree.result;
    const r = await net.request({type: "pdn_save", variant: ui.tree.variant, start: ui.tree.start,
                                 tags, line: ui.tree.toLine()});
    $("pdn-text").value = r.text;
    $("pdnbox").hidden = false;
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([r.text], {type: "application/x-pdn"}));
    a.download = "game.pdn";
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
    message("The game is saved as game.pdn (and shown in the PDN box).", true);
  } catch (err) {
    message(err.message);
  }
});

$("analysis-file").addEventListener("change", async () => {
  const f = $("analysis-file").files[0];
  $("analysis-file").value = "";
  if (!f || game.on || tooBig(f, f.name)) return;
  message(`Reading ${f.name}…`, true);
  try {
    const data = await upload(f, {kind: "analysis", name: f.name});
    ui.analysisFile = data;
    message(`${f.name}: ${data.collections.length} game${data.collections.length === 1 ? "" : "s"} ` +
            `or position lists${data.skipped ? `, ${data.skipped} lines skipped (${data.errors[0]})` : ""}.`, true);
    if (data.collections.length === 1) loadAnalysis(0);
    else showChooser(`${f.name}: choose a game`, P.analysisChooser(data), "analysis");
  } catch (err) {
    message(err.message);
  }
});

function loadAnalysis(index) {
  const c = ui.analysisFile.collections[index];
  if (c.kind === "game" && c.start) {
    loadMoves(c.variant, c.start, c.moves);
    const main = ui.tree.mainLine();
    c.nodes.forEach((rec, i) => {
      const node = main[i];
      if (!node) return;
      node.ann = rec;
      const next = main[i + 1];
      if (next && rec.played === next.move.hub) next.moveAnn = {cls: rec.class, loss: rec.loss};
    });
    ui.analysis = {main};
    const points = main.map((node) => (node.ann ? {
      score: B.whiteView(node.ann.score, node.ann.side), cls: node.ann.class || "",
      title: node.move ? `${node.move.label || ""} ` : ""} : {score: null}));
    $("graph").innerHTML = B.graphSvg(points);
    $("graph").hidden = false;
    $("record-title").textContent = `${c.id}${c.tags.White ? ` ${c.tags.White} - ${c.tags.Black || "?"}` : ""}`;
    if (c.tags.Result) ui.tree.result = c.tags.Result;
  } else {
    const rec = c.nodes[0];
    loadMoves(c.variant, rec.position, []);
    ui.tree.root.ann = rec;
    $("record-title").textContent = c.id;
    if (c.nodes.length > 1) {
      ui.analysisList = c;
      showChooser(`${c.id}: choose a position`, {
        head: "<tr><th>position</th><th>best</th><th class=\"n\">evaluation</th></tr>",
        rows: c.nodes.map((r, i) => `<tr data-position="${i}"><td>${B.esc(r.label || `line ${i + 1}`)}</td>` +
          `<td>${B.esc(r.best || "")}</td><td class="n">${B.esc(B.fmtScore(B.whiteView(r.score, r.side)))}</td></tr>`),
      }, "positions");
    }
  }
  goTo(ui.tree.root);
}

$("graph").addEventListener("click", (e) => {
  const svg = e.target.closest("svg.graph");
  if (!svg || !ui.analysis) return;
  const item = e.target.closest("[data-i]");
  const i = item ? +item.dataset.i : B.graphIndex(svg, e.clientX, ui.analysis.main.length);
  const node = ui.analysis.main[i];
  if (node) goTo(node);
});

function showChooser(title, {head, rows}, kind) {
  $("chooser-title").textContent = title;
  const table = $("chooser-table");
  table.querySelector("thead").innerHTML = head;
  table.querySelector("tbody").innerHTML = rows.join("");
  table.dataset.kind = kind;
  $("chooser-filter").value = "";
  $("chooser").hidden = false;
}

$("chooser-table").addEventListener("click", (e) => {
  const row = e.target.closest("tbody tr");
  if (!row || game.on) return;
  const kind = $("chooser-table").dataset.kind;
  for (const r of $("chooser-table").querySelectorAll("tr.cur")) r.classList.remove("cur");
  row.classList.add("cur");
  if (kind === "pdn") loadPdnGame(+row.dataset.number);
  else if (kind === "analysis") loadAnalysis(+row.dataset.index);
  else if (kind === "positions") {
    const rec = ui.analysisList.nodes[+row.dataset.position];
    loadMoves(ui.analysisList.variant, rec.position, []);
    ui.tree.root.ann = rec;
    goTo(ui.tree.root);
  }
});
$("chooser-filter").addEventListener("input", () => {
  const words = $("chooser-filter").value.toLowerCase().split(/\s+/).filter(Boolean);
  for (const row of $("chooser-table").querySelectorAll("tbody tr")) {
    const text = row.textContent.toLowerCase();
    row.hidden = !words.every((w) => text.includes(w));
  }
});
$("chooser-close").addEventListener("click", () => { $("chooser").hidden = true; });

// --- start ---------------------------------------------------------------------------------------
async function main() {
  fillNotations();
  setMode("play");
  try {
    await positionTree(ui.variant, "start");
  } catch (err) {
    document.documentElement.dataset.error = String(err.message || err);
    return;
  }
}

// A first board at once, from the geometry alone, while the connection opens.
(function firstBoard() {
  const pos = ["W"];
  for (let k = 1; k <= 32; k++) pos.push(k <= 12 ? "b" : (k > 20 ? "w" : "e"));
  boardEl.innerHTML = B.boardSvg(geo(), pos.join(""), {notation: ui.notation});
})();
main();
