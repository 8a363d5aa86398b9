// Pieces of the page drawn as HTML: the engine's lines, clocks, the file choosers and what an
// analysis file says about a position.

import {cap, esc, fmtScore, pathText, whiteView} from "./board.js";
import {NAG} from "./tree.js";

// The analysis lines: one row per line (best first), each move clickable (data-k, data-j).
export function linesHtml(g, notation, lines, side) {
  return lines.map((info, k) => {
    if (!info) return "";
    const moves = info.pv.map((m, j) => {
      const num = j === 0 || m.label.endsWith(".") && !m.label.endsWith("...")
        ? `<span class="num">${esc(m.label)}</span>` : "";
      return `${num}<span class="pv${j === 0 ? " first" : ""}" data-k="${k}" data-j="${j}">` +
             `${esc(pathText(g, m, notation))}</span>`;
    }).join(" ");
    return `<tr data-k="${k}"><td class="n">${k + 1}</td>` +
           `<td class="n score">${esc(fmtScore(whiteView(info.score, side)))}</td>` +
           `<td class="n depth">${info.depth ?? ""}</td><td class="line">${moves}</td></tr>`;
  }).join("");
}

export function statsText(info) {
  if (!info) return "";
  const parts = [];
  if (info.depth != null) parts.push(`depth ${info.depth}`);
  if (info.nps != null) parts.push(`${info.nps.toFixed(1)} M nodes/s`);
  if (info.nodes != null) parts.push(`${info.nodes.toLocaleString("en")} nodes`);
  if (info.time != null) parts.push(`${info.time.toFixed(1)} s`);
  return parts.join(", ");
}

// Milliseconds as m:ss (h:mm:ss past an hour, tenths under ten seconds).
export function fmtClock(ms) {
  const neg = ms < 0;
  const t = Math.max(0, ms);
  if (t < 10000 && !neg) return (t / 1000).toFixed(1);
  const s = Math.floor(t / 1000), h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60;
  const ss = String(s % 60).padStart(2, "0");
  return (neg ? "-" : "") + (h ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`);
}

export function pdnChooser(data) {
  const head = '<tr><th class="n">#</th><th>White</th><th>Black</th><th>result</th>' +
               '<th>event</th><th class="n">moves</th></tr>';
  const rows = data.games.map((gm) => {
    const t = gm.tags;
    const bad = gm.error ? ' class="bad"' : "";
    const title = gm.error ? ` title="${esc(gm.error)}"` : "";
    return `<tr data-number="${gm.number}"${bad}${title}><td class="n">${gm.number}</td>` +
           `<td>${esc(t.White || "?")}</td><td>${esc(t.Black || "?")}</td>` +
           `<td>${esc(t.Result || "")}</td><td>${esc([t.Event, t.Date].filter(Boolean).join(" "))}</td>` +
           `<td class="n">${gm.moves}${gm.error ? " !" : ""}</td></tr>`;
  });
  return {head, rows};
}

export function analysisChooser(data) {
  const head = '<tr><th>game or positions</th><th>players</th><th>variant</th>' +
               '<th class="n">positions</th></tr>';
  const rows = data.collections.map((c, i) => {
    const who = [c.tags.White, c.tags.Black].filter(Boolean).join(" - ");
    return `<tr data-index="${i}"><td>${esc(c.id)}</td><td>${esc(who)}</td><td>${esc(c.variant)}</td>` +
           `<td class="n">${c.nodes.length}</td></tr>`;
  });
  return {head, rows};
}

// What an analysis file says about the position on the board and the move that led to it.
export function nodeInfoHtml(g, notation, node, hubText) {
  const out = [];
  const m = node.moveAnn;
  if (m && node.move) {
    let p = `Played <b class="${m.cls || ""}">${esc(hubText(node.move.hub))}${NAG[m.cls] || ""}</b>`;
    if (m.cls) p += ` <span class="${m.cls}">${m.cls}</span>`;
    if (m.loss != null) p += `, loss ${m.loss.toFixed(2)} men`;
    out.push(`<div>${p}</div>`);
  }
  const a = node.ann;
  if (a) {
    if (a.result === "loss") {
      out.push(`<div>${cap(a.side === "white" ? "black" : "white")} has won.</div>`);
    } else if (a.score != null) {
      let e = `Evaluation <b>${esc(fmtScore(whiteView(a.score, a.side)))}</b>`;
      if (a.depth != null) e += ` <span class="hint">depth ${a.depth}</span>`;
      out.push(`<div>${e}</div>`);
    }
    if (a.best) out.push(`<div>Best <span class="best">${esc(hubText(a.best))}</span>` +
                         (a.pv && a.pv.length ? ` <span class="hint">${esc(a.pv.map(hubText).join(" "))}</span>` : "") +
                         "</div>");
  }
  return out.join("");
}
