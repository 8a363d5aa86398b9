// The report's script: draws the one game on screen from its JSON block (parsed when opened).
// Evaluations are shown from White's side: + White is better, - Black is better, in men.
// The board and the graph are drawn by board.js, inlined ahead of this script in one module.
const boardNotation = notationOf, hubMoveText = moveText, drawBoard = boardSvg, drawGraph = graphSvg;
(() => {
  const META = JSON.parse(document.getElementById("report-meta").textContent);
  const F = {};
  META.fields.forEach((name, i) => { F[name] = i; });
  const NAG = {inaccuracy: "?!", mistake: "?", blunder: "??"};
  const summary = document.getElementById("summary");
  const view = document.getElementById("game");
  const nav = document.getElementById("nav");
  const cache = new Map();
  const state = {index: null, nodes: null, node: 0, flip: false,
                 notation: loadPref("notation", "record")};

  const GEO = {};
  for (const [name, g] of Object.entries(META.variants)) GEO[name] = makeGeometry(g);

  function loadPref(name, fallback) {
    try { return localStorage.getItem("hub-engine-report-" + name) || fallback; }
    catch (e) { return fallback; }
  }
  function savePref(name, value) {
    try { localStorage.setItem("hub-engine-report-" + name, value); } catch (e) { /* no storage */ }
  }

  function nodesOf(i) {
    if (!cache.has(i)) {
      cache.set(i, JSON.parse(document.getElementById("c" + i).textContent).nodes);
    }
    return cache.get(i);
  }

  // --- notation and the board: board.js, with this page's notation and orientation -----------
  function notationOf(g) { return boardNotation(g, state.notation); }
  function parseMove(g, text) { return parseHubMove(g, text); }
  function moveText(g, text) { return hubMoveText(g, text, state.notation); }
  function lineText(g, pv) { return pv ? pv.split(" ").map((m) => moveText(g, m)).join(" ") : ""; }

  function boardSvg(g, nd) {
    const cls = nd[F.class] || "";
    const played = parseMove(g, nd[F.played]), best = parseMove(g, nd[F.best]);
    const opts = {flip: state.flip, notation: state.notation, marks: [], crosses: [], arrows: []};
    if (played) {
      opts.marks = [[played.from, cls], [played.to, cls]];
      opts.crosses = played.taken;
      if (!(nd[F.played] && nd[F.played] === nd[F.best])) {
        opts.arrows.push({from: played.from, to: played.to, cls: cls || "played"});
      }
    }
    if (best) opts.arrows.push({from: best.from, to: best.to, cls: "best"});
    return drawBoard(g, nd[F.position], opts);
  }

  function graphSvg(nodes) {
    return drawGraph(nodes.map((nd) => {
      const label = nd[F.label] ? `${nd[F.label]} ` : "";
      return {score: whiteView(nd[F.score], nd[F.side]), cls: nd[F.class] || "", title: label};
    }));
  }

  // --- the panels -----------------------------------------------------------------------------
  function movesHtml(g, c, nodes) {
    const out = [];
    nodes.forEach((nd, i) => {
      const cls = nd[F.class] || "";
      if (c.kind === "positions") {
        out.push(`<span class="mv" data-i="${i}">${esc(nd[F.label])}: ` +
                 `${esc(moveText(g, nd[F.best]))}</span> `);
        return;
      }
      const played = nd[F.played];
      if (!played) {
        if (i === nodes.length - 1) {
          out.push(`<span class="mv end" data-i="${i}">${esc(c.tags.Result || "end")}</span>`);
        }
        return;
      }
      const label = nd[F.label] || "";
      const prev = nodes[i - 1];
      const follows = prev && prev[F.played] && prev[F.ply] === nd[F.ply] - 1 &&
                      !(prev[F.label] || "").endsWith("...");
      if (label && !(label.endsWith("...") && follows)) {
        out.push(`<span class="num">${esc(label)}</span>`);     // no break before its move
      }
      const book = nd[F.book] ? " book" : "";
      out.push(`<span class="mv ${cls}${book}" data-i="${i}">${esc(moveText(g, played))}` +
               `${NAG[cls] || ""}</span> `);
    });
    return out.join("");
  }

  function linesOf(nd) {
    if (nd[F.multipv] && nd[F.multipv].length) return nd[F.multipv];
    return nd[F.best] ? [[nd[F.best], nd[F.score], nd[F.pv]]] : [];
  }

  function infoHtml(g, c, nd) {
    const side = nd[F.side], cls = nd[F.class], played = nd[F.played];
    const out = [];
    let where;
    if (c.kind === "positions") where = `${esc(nd[F.label])}, ${esc(cap(side))} to move`;
    else if (played) where = `Move ${esc(nd[F.label] || "")} ${esc(moveText(g, played))}, ${esc(cap(side))} to move`;
    else if (nd[F.result] === "loss") where = `Final position, ${esc(cap(side))} to move: no legal move, lost`;
    else where = `Final position, ${esc(cap(side))} to move`;
    out.push(`<div class="where">${where}</div>`);
    if (nd[F.book]) {
      out.push('<div class="book-note hint">Book position: the engine plays here from its ' +
               'opening book.</div>');
    }
    if (played) {
      let p = `Played <b class="${cls || ""}">${esc(moveText(g, played))}${NAG[cls] || ""}</b>`;
      if (cls) p += ` <span class="${cls}">${cls}</span>`;
      if (nd[F.loss] != null) p += `, loss ${nd[F.loss].toFixed(2)} men`;
      if (nd[F.played_score] != null) p += `; after it ${esc(fmtScore(whiteView(nd[F.played_score], side)))}`;
      out.push(`<div class="played">${p}</div>`);
    }
    if (nd[F.result] === "loss") {
      out.push(`<div class="eval">${esc(cap(side === "white" ? "black" : "white"))} has won.</div>`);
    } else if (nd[F.score] != null) {
      let e = `Evaluation <b>${esc(fmtScore(whiteView(nd[F.score], side)))}</b>`;
      if (nd[F.depth] != null) e += ` <span class="hint">depth ${nd[F.depth]}`;
      if (nd[F.nodes] != null) e += `, ${nd[F.nodes].toLocaleString("en")} nodes`;
      if (nd[F.depth] != null) e += "</span>";
      out.push(`<div class="eval">${e}</div>`);
    } else {
      out.push('<div class="eval hint">Not analysed.</div>');
    }
    const lines = linesOf(nd);
    if (lines.length) {
      const rows = lines.map((l, k) => (
        `<tr class="${l[0] === played ? "is-played" : ""}"><td class="n">${k + 1}</td>` +
        `<td class="${k === 0 ? "best" : ""}">${esc(moveText(g, l[0]))}</td>` +
        `<td class="n">${esc(fmtScore(whiteView(l[1], side)))}</td>` +
        `<td class="line">${esc(lineText(g, l[2]))}</td></tr>`));
      if (played && !lines.some((l) => l[0] === played) && nd[F.played_score] != null) {
        rows.push(`<tr class="is-played"><td class="n">played</td><td>${esc(moveText(g, played))}</td>` +
                  `<td class="n">${esc(fmtScore(whiteView(nd[F.played_score], side)))}</td><td></td></tr>`);
      }
      out.push('<table class="lines"><thead><tr><th class="n">#</th><th>move</th>' +
               '<th class="n">evaluation</th><th>engine line</th></tr></thead>' +
               `<tbody>${rows.join("")}</tbody></table>`);
    }
    return out.join("");
  }

  function errorsHtml(g, nodes) {
    const items = [];
    nodes.forEach((nd, i) => {
      const cls = nd[F.class];
      if (!cls || !nd[F.played]) return;
      items.push(`<li class="${cls}" data-i="${i}">${esc(nd[F.label] || "")} ` +
                 `${esc(moveText(g, nd[F.played]))}${NAG[cls]} ${cls} by ${esc(cap(nd[F.side]))}, ` +
                 `loss ${nd[F.loss] != null ? nd[F.loss].toFixed(2) : "?"}; best ` +
                 `${esc(moveText(g, nd[F.best]))}</li>`);
    });
    if (!items.length) return '<p class="hint">No inaccuracy, mistake or blunder.</p>';
    return `<ol>${items.join("")}</ol>`;
  }

  function qualityHtml(c) {
    if (!c.quality) return "";
    return Object.entries(c.quality).map(([side, q]) => {
      const [moves, avg, i, m, b] = q;
      return `<span>${cap(side)}: ${moves} moves, average loss ${avg == null ? "-" : avg.toFixed(2)}` +
             (i ? `, <b class="inaccuracy">${i}?!</b>` : "") + (m ? `, <b class="mistake">${m}?</b>` : "") +
             (b ? `, <b class="blunder">${b}??</b>` : "") + "</span>";
    }).join("");
  }

  function headHtml(c) {
    const t = c.tags;
    const bits = [];
    if (c.kind === "game") {
      bits.push(`White ${esc(t.White || "?")}`, `Black ${esc(t.Black || "?")}`);
      if (t.Result) bits.push(`result ${esc(t.Result)}`);
      for (const k of ["Event", "Site", "Date", "Round"]) if (t[k] && t[k] !== "?") bits.push(esc(t[k]));
    }
    bits.push(esc(c.variant), esc(c.id));
    return `<div class="game-head"><h2>${esc(c.title)}</h2><div class="tags">${bits.join(" &middot; ")}` +
           `</div><div class="quality">${qualityHtml(c)}</div></div>`;
  }

  function controlsHtml(g) {
    const options = g.notations.map(([key, title]) => (
      `<option value="${key}"${key === notationOf(g) ? " selected" : ""}>${esc(title)}</option>`));
    return '<div class="controls"><button data-go="first" title="first (Home)">|&lt;</button>' +
           '<button data-go="prev" title="previous (left arrow)">&lt;</button>' +
           '<button data-go="next" title="next (right arrow)">&gt;</button>' +
           '<button data-go="last" title="last (End)">&gt;|</button>' +
           '<button data-go="flip" title="turn the board round">flip</button>' +
           `<label>squares <select class="notation">${options.join("")}</select></label></div>`;
  }

  // --- showing a game and moving through it ---------------------------------------------------
  function renderGame() {
    const c = META.collections[state.index], g = GEO[c.variant], nodes = state.nodes;
    view.innerHTML = headHtml(c) +
      `<div class="game-body"><div class="board-box">${controlsHtml(g)}<div class="board-slot"></div>` +
      '<p class="hint">Arrows: the engine\'s best move (green) and the move played. ' +
      "Left/right arrow keys step through.</p></div>" +
      '<div><div class="info"></div><div class="graph-box">' + graphSvg(nodes) + "</div>" +
      '<p class="hint">Evaluation in men from White\'s side (+ White is better); ' +
      "&#9650; a win found by the search, &#9670; a win from the endgame table. " +
      "Click a point to see its position.</p>" +
      `<div class="moves">${movesHtml(g, c, nodes)}</div>` +
      (c.kind === "game" ? '<div class="errors"><h3>Inaccuracies, mistakes and blunders</h3>' +
                           `${errorsHtml(g, nodes)}</div>` : "") +
      "</div></div>";
    view.dataset.collection = String(state.index);
  }

  function select(i) {
    const nodes = state.nodes;
    if (!nodes || !nodes.length) return;
    i = Math.max(0, Math.min(nodes.length - 1, i));
    state.node = i;
    const c = META.collections[state.index], g = GEO[c.variant], nd = nodes[i];
    view.querySelector(".board-slot").innerHTML = boardSvg(g, nd);
    view.querySelector(".info").innerHTML = infoHtml(g, c, nd);
    moveCursor(view.querySelector("svg.graph"), i, nodes.length);
    for (const el of view.querySelectorAll(".moves .cur")) el.classList.remove("cur");
    const mv = view.querySelector(`.moves .mv[data-i="${i}"]`);
    if (mv) {
      mv.classList.add("cur");
      const box = mv.parentElement;
      if (mv.offsetTop < box.scrollTop || mv.offsetTop > box.scrollTop + box.clientHeight - 20) {
        box.scrollTop = mv.offsetTop - box.clientHeight / 2;
      }
    }
    view.dataset.node = String(i);
    history.replaceState(null, "", `#game=${state.index}&node=${i}`);
  }

  function showGame(index, node) {
    if (state.index !== index) {
      state.index = index;
      state.nodes = nodesOf(index);
      renderGame();
    }
    summary.hidden = true;
    view.hidden = false;
    renderNav();
    select(node);
  }

  function showSummary() {
    view.hidden = true;
    summary.hidden = false;
    renderNav();
  }

  function renderNav() {
    const n = META.collections.length;
    if (view.hidden) {
      const games = META.collections.filter((c) => c.kind === "game").length;
      nav.innerHTML = `<span>${games} game${games === 1 ? "" : "s"}` +
        (n > games ? `, ${n - games} page${n - games === 1 ? "" : "s"} of positions` : "") + "</span>";
      return;
    }
    const i = state.index;
    nav.innerHTML = '<a href="#summary">Summary</a>' +
      `<button data-page="${i - 1}"${i > 0 ? "" : " disabled"}>&lt; previous</button>` +
      `<span>${i + 1} / ${n}</span>` +
      `<button data-page="${i + 1}"${i + 1 < n ? "" : " disabled"}>next &gt;</button>`;
  }

  function route() {
    const h = new URLSearchParams(location.hash.slice(1));
    const index = parseInt(h.get("game"), 10);
    if (Number.isInteger(index) && index >= 0 && index < META.collections.length) {
      const node = parseInt(h.get("node") || "0", 10);
      showGame(index, Number.isInteger(node) ? node : 0);
    } else {
      showSummary();
    }
  }

  function step(where) {
    const last = state.nodes.length - 1;
    const to = {first: 0, prev: state.node - 1, next: state.node + 1, last}[where];
    select(to);
  }

  view.addEventListener("click", (e) => {
    const go = e.target.closest("[data-go]");
    if (go) {
      if (go.dataset.go === "flip") {
        state.flip = !state.flip;
        select(state.node);
      } else {
        step(go.dataset.go);
      }
      return;
    }
    const item = e.target.closest("[data-i]");
    if (item && !item.closest("svg.graph")) {
      select(parseInt(item.dataset.i, 10));
      return;
    }
    const graph = e.target.closest("svg.graph");
    if (graph) {
      if (item) { select(parseInt(item.dataset.i, 10)); return; }
      select(graphIndex(graph, e.clientX, state.nodes.length));
    }
  });
  view.addEventListener("change", (e) => {
    if (e.target.matches("select.notation")) {
      state.notation = e.target.value;
      savePref("notation", state.notation);
      const node = state.node;
      renderGame();
      select(node);
    }
  });
  summary.addEventListener("click", (e) => {      // a whole row of the summary opens its page
    const row = e.target.closest("tr[data-c]");
    if (row && !e.target.closest("a")) location.hash = `game=${row.dataset.c}`;
  });
  nav.addEventListener("click", (e) => {
    const b = e.target.closest("[data-page]");
    if (b) location.hash = `game=${b.dataset.page}`;
  });
  document.addEventListener("keydown", (e) => {
    if (view.hidden || !state.nodes || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.target.closest && e.target.closest("select, input, textarea")) return;
    const keys = {ArrowLeft: "prev", ArrowRight: "next", Home: "first", End: "last"};
    if (keys[e.key]) {
      e.preventDefault();
      step(keys[e.key]);
    }
  });
  window.addEventListener("hashchange", route);

  try {
    route();
    document.documentElement.dataset.ready = "1";
  } catch (err) {
    document.documentElement.dataset.error = String(err);
    const p = document.createElement("p");
    p.className = "error";
    p.textContent = `This report could not be shown: ${err}`;
    document.querySelector("main").prepend(p);
    throw err;
  }
  if (window.performance && performance.mark) performance.mark("report-ready");
})();
