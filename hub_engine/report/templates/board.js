// The board and the evaluation graph as SVG, shared by the report and the GUI (`hub-engine gui`):
// one look for both. A plain ES module; the report inlines it ahead of its own script, the GUI
// serves it as /static/board.js.
//
// A variant's geometry comes from hub_engine/report/boards.py: `squares[k - 1]` is
// [x, y, record name, Hub number, algebraic name] of Hub layout square k (x, y from White's
// side, 0..7 from the top left), `notations` the [key, title] pairs worth offering.
// Scores are in men; the engine's wins are 100 - n/100, endgame-table wins 90 - n/100.

export const COLUMN = {record: 2, hub: 3, algebraic: 4};  // where a square's names sit in its row
export const SQ = 50;                                      // board square size in SVG units
export const GW = 800, GH = 180, GP = 12;                  // graph size and padding
export const ARROWS = ["best", "played", "inaccuracy", "mistake", "blunder", "line", "line2",
                       "line3", "line4", "line5"];

export function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => (
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"}[c]));
}

export function cap(s) { return s ? s[0].toUpperCase() + s.slice(1) : ""; }

// --- geometry and notation ----------------------------------------------------------------------
export function makeGeometry(g) {
  const byHub = {};
  g.squares.forEach((s, i) => { byHub[s[COLUMN.hub]] = i + 1; });
  return Object.assign({byHub, keys: g.notations.map((n) => n[0])}, g);
}

export function notationOf(g, wanted) { return g.keys.includes(wanted) ? wanted : g.keys[0]; }

export function squareName(g, k, notation) { return g.squares[k - 1][COLUMN[notationOf(g, notation)]]; }

// A Hub move string (`22-18`, `26x17x22`) as layout squares: from, to, taken.
export function parseHubMove(g, text) {
  if (!text) return null;
  const squares = text.split(/[-x]/).map((n) => g.byHub[n]);
  if (squares.length < 2 || squares.some((k) => !k)) return null;
  const capture = text.includes("x");
  return {from: squares[0], to: squares[1], taken: capture ? squares.slice(2) : [], capture};
}

function separator(name, capture) { return capture ? (/^[a-h]/.test(name) ? ":" : "x") : "-"; }

// A Hub move string in the chosen square names (origin and destination).
export function moveText(g, text, notation) {
  if (!text) return "";
  if (notationOf(g, notation) === "hub") return text;
  const m = parseHubMove(g, text);
  if (!m) return text;
  const a = squareName(g, m.from, notation), b = squareName(g, m.to, notation);
  return a + separator(a, m.capture) + b;
}

// A move as the GUI's server describes it ({hub, from, to, path, capture, ambiguous}): the whole
// path when origin and destination name more than one legal move.
export function pathText(g, move, notation) {
  if (notationOf(g, notation) === "hub") return move.hub;
  const squares = move.ambiguous && move.path ? move.path : [move.from, move.to];
  const names = squares.map((k) => squareName(g, k, notation));
  return names.join(separator(names[0], move.capture));
}

// --- scores -----------------------------------------------------------------------------------
export function whiteView(score, side) { return score == null ? null : (side === "black" ? -score : score); }

export function winKind(s) {
  const a = Math.abs(s);
  return a >= 95 ? "win" : (a >= 50 ? "table" : null);
}

export function fmtScore(s) {
  if (s == null) return "-";
  const a = Math.abs(s), who = s > 0 ? "White" : "Black", kind = winKind(s);
  if (kind === "win") {
    return a >= 100 ? `${who} has won` : `${who} wins in ${Math.round((100 - a) * 100)} plies`;
  }
  if (kind === "table") {
    return a <= 90 ? `${who} wins (endgame table, ${Math.round((90 - a) * 100)} plies)`
                   : `${who} wins (endgame table)`;
  }
  return (s > 0 ? "+" : (s < 0 ? "-" : "")) + a.toFixed(2);
}

// White's share of an evaluation bar, 0..1.
export function barShare(s) {
  if (s == null) return 0.5;
  const v = winKind(s) ? Math.sign(s) : Math.tanh(s / 3);
  return (1 + v) / 2;
}

// --- the board --------------------------------------------------------------------------------
export function xy(g, k, flip) {
  const [x, y] = g.squares[k - 1];
  return flip ? [7 - x, 7 - y] : [x, y];
}

export function centre(g, k, flip) {
  const [x, y] = xy(g, k, flip);
  return [x * SQ + SQ / 2, y * SQ + SQ / 2];
}

// The layout square under an SVG point, or null.
export function squareAt(g, px, py, flip) {
  const x = Math.floor(px / SQ), y = Math.floor(py / SQ);
  for (let k = 1; k <= 32; k++) {
    const [sx, sy] = xy(g, k, flip);
    if (sx === x && sy === y) return k;
  }
  return null;
}

function colourOf(g, ch) {
  const second = g.first === "white" ? "black" : "white";
  return ch === "w" || ch === "W" ? g.first : second;
}

function marker(cls) {
  return `<marker id="ah-${cls}" viewBox="0 0 10 10" refX="4" refY="5" markerWidth="3" ` +
         `markerHeight="3" orient="auto"><path class="ah ${cls}" d="M0,0 L10,5 L0,10 z"/></marker>`;
}

function arrow(g, a, flip) {
  const [x1, y1] = centre(g, a.from, flip), [x2, y2] = centre(g, a.to, flip);
  const len = Math.hypot(x2 - x1, y2 - y1) || 1, cut = 12;
  const ex = x2 - (x2 - x1) * cut / len, ey = y2 - (y2 - y1) * cut / len;
  return `<line class="arrow ${a.cls}" x1="${x1}" y1="${y1}" x2="${ex.toFixed(1)}" ` +
         `y2="${ey.toFixed(1)}" marker-end="url(#ah-${a.cls})"/>`;
}

export function pieceSvg(g, ch, cx, cy, k) {
  const king = ch === "W" || ch === "B";
  const attr = k == null ? "" : ` data-square="${k}"`;
  let out = `<g class="piece ${colourOf(g, ch)} ${king ? "king" : "man"}"${attr}>` +
            `<circle cx="${cx}" cy="${cy}" r="19"/>`;
  if (king) {
    out += `<circle class="ring" cx="${cx}" cy="${cy}" r="14"/><path class="crown" d="M${cx - 8} ` +
           `${cy + 5}V${cy - 4}L${cx - 4} ${cy}L${cx} ${cy - 7}L${cx + 4} ${cy}L${cx + 8} ` +
           `${cy - 4}V${cy + 5}Z"/>`;
  }
  return out + "</g>";
}

// The board of a Hub position string (side char, then w b W B e for layout squares 1..32).
// opts: flip, notation, marks [[square, class], ...] (square highlights), dots [square, ...]
// (targets), crosses [square, ...] (pieces taken), arrows [{from, to, cls}, ...] (cls one of
// ARROWS), hidden [square, ...] (pieces not drawn, e.g. one being dragged).
export function boardSvg(g, position, opts = {}) {
  const flip = !!opts.flip;
  const out = ['<svg class="board" viewBox="0 0 400 400" xmlns="http://www.w3.org/2000/svg" ' +
               `role="img" aria-label="board" data-flipped="${flip ? 1 : 0}"><defs>`,
               ARROWS.map(marker).join(""),
               '</defs><rect class="light" width="400" height="400"/>'];
  for (let k = 1; k <= 32; k++) {
    const [x, y] = xy(g, k, flip);
    out.push(`<rect class="dark" data-square="${k}" x="${x * SQ}" y="${y * SQ}" ` +
             `width="${SQ}" height="${SQ}"/>`);
  }
  for (const [k, cls] of opts.marks || []) {
    const [x, y] = xy(g, k, flip);
    out.push(`<rect class="hl ${cls || ""}" x="${x * SQ}" y="${y * SQ}" width="${SQ}" height="${SQ}"/>`);
  }
  for (let k = 1; k <= 32; k++) {
    const [x, y] = xy(g, k, flip);
    out.push(`<text class="lbl" data-square="${k}" x="${x * SQ + 3}" y="${y * SQ + 11}">` +
             `${esc(squareName(g, k, opts.notation))}</text>`);
  }
  const hidden = new Set(opts.hidden || []);
  for (let k = 1; k <= 32; k++) {
    const ch = position[k];
    if (ch === "e" || ch === "." || hidden.has(k)) continue;
    const [cx, cy] = centre(g, k, flip);
    out.push(pieceSvg(g, ch, cx, cy, k));
  }
  for (const k of opts.dots || []) {
    const [cx, cy] = centre(g, k, flip);
    out.push(`<circle class="dot" data-square="${k}" cx="${cx}" cy="${cy}" r="8"/>`);
  }
  for (const k of opts.crosses || []) {
    const [cx, cy] = centre(g, k, flip);
    out.push(`<path class="taken" d="M${cx - 8} ${cy - 8}L${cx + 8} ${cy + 8}M${cx + 8} ` +
             `${cy - 8}L${cx - 8} ${cy + 8}"/>`);
  }
  for (const a of opts.arrows || []) out.push(arrow(g, a, flip));
  out.push("</svg>");
  return out.join("");
}

// --- the evaluation graph ---------------------------------------------------------------------
export function graphX(i, n) { return n > 1 ? GP + i * (GW - 2 * GP) / (n - 1) : GW / 2; }

function graphY(s) {
  const v = winKind(s) ? Math.sign(s) : Math.tanh(s / 3);
  return GH / 2 - v * (GH / 2 - GP);
}

// points: one per position, in order: {score (White's view, or null), cls, title}.
export function graphSvg(points) {
  const n = points.length;
  const out = [`<svg class="graph" viewBox="0 0 ${GW} ${GH}" xmlns="http://www.w3.org/2000/svg" ` +
               'role="img" aria-label="evaluation graph">',
               `<rect class="bg-white" width="${GW}" height="${GH / 2}"/>`,
               `<rect class="bg-black" y="${GH / 2}" width="${GW}" height="${GH / 2}"/>`];
  for (const m of [1, 3, -1, -3]) {
    const y = graphY(m).toFixed(1);
    out.push(`<line class="grid" x1="0" x2="${GW}" y1="${y}" y2="${y}"/>` +
             `<text x="2" y="${(+y - 2).toFixed(1)}">${m > 0 ? "+" : ""}${m}</text>`);
  }
  out.push(`<line class="zero" x1="0" x2="${GW}" y1="${GH / 2}" y2="${GH / 2}"/>`);
  let run = [];
  const curves = [], dots = [];
  points.forEach((p, i) => {
    const s = p.score;
    if (s == null) {
      if (run.length) curves.push(run);
      run = [];
      return;
    }
    const x = graphX(i, n), y = graphY(s), kind = winKind(s), cls = p.cls || "";
    run.push(`${x.toFixed(1)},${y.toFixed(1)}`);
    const title = `<title>${esc(p.title || "")}${esc(fmtScore(s))}${cls ? " (" + cls + ")" : ""}</title>`;
    const a = `class="pt ${kind || ""} ${cls}" data-i="${i}"`;
    if (kind === "win") {
      const d = s > 0 ? 1 : -1;
      dots.push(`<polygon ${a} points="${x - 5},${y + 4 * d} ${x + 5},${y + 4 * d} ` +
                `${x},${y - 5 * d}">${title}</polygon>`);
    } else if (kind === "table") {
      dots.push(`<polygon ${a} points="${x},${y - 5} ${x + 5},${y} ${x},${y + 5} ${x - 5},${y}">` +
                `${title}</polygon>`);
    } else {
      dots.push(`<circle ${a} cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${cls ? 4.5 : 2.5}">` +
                `${title}</circle>`);
    }
  });
  if (run.length) curves.push(run);
  for (const c of curves) out.push(`<polyline class="curve" points="${c.join(" ")}"/>`);
  out.push(`<line class="cursor" x1="0" x2="0" y1="0" y2="${GH}"/>`);
  out.push(dots.join(""), "</svg>");
  return out.join("");
}

// The point index under a click on the graph.
export function graphIndex(svg, clientX, n) {
  const r = svg.getBoundingClientRect();
  const x = (clientX - r.left) * GW / r.width;
  return n > 1 ? Math.max(0, Math.min(n - 1, Math.round((x - GP) * (n - 1) / (GW - 2 * GP)))) : 0;
}

export function moveCursor(svg, i, n) {
  const cursor = svg.querySelector(".cursor");
  if (!cursor) return;
  const x = graphX(i, n).toFixed(1);
  cursor.setAttribute("x1", x);
  cursor.setAttribute("x2", x);
}
