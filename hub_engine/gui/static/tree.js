// The game record as a tree: the main line is every node's first child, the other children are
// variations (kept when a move is played from an earlier position). Moves are the server's move
// objects ({hub, from, to, path, captured, capture, ambiguous, text}); a node's `state` (its
// position, legal moves, result) is asked from the server when it is first needed.

import {esc} from "./board.js";

export const NAG = {inaccuracy: "?!", mistake: "?", blunder: "??"};
let lastId = 0;           // node ids are unique across trees: a page element never names an old one

export class Node {
  constructor(tree, parent, move) {
    this.id = ++lastId;
    this.tree = tree;
    this.parent = parent;
    this.move = move;
    this.children = [];
    this.half = parent ? parent.half + 1 : tree.startHalf;   // half-move index of this position
    this.state = null;
    this.ann = null;          // analysis-file record of this position
    this.moveAnn = null;      // verdict on the move that led here: {cls, loss}
    tree.byId.set(this.id, this);
  }

  moves() {
    const out = [];
    for (let n = this; n.parent; n = n.parent) out.push(n.move.hub);
    return out.reverse();
  }

  line() {
    const out = [];
    for (let n = this; n; n = n.parent) out.push(n);
    return out.reverse();
  }

  get depth() { return this.half - this.tree.startHalf; }
}

export function moveLabel(index) {
  return index % 2 === 0 ? `${index / 2 + 1}.` : `${(index - 1) / 2 + 1}...`;
}

export class Tree {
  // variant name, start position (Hub string), its side to move ("white"/"black")
  constructor(variant, start, firstMover, side) {
    this.variant = variant;
    this.start = start;
    this.startHalf = side === firstMover ? 0 : 1;
    this.byId = new Map();
    this.root = new Node(this, null, null);
    this.current = this.root;
    this.tags = {};
    this.result = null;        // a result written after the main line (game over, or a record's)
  }

  // The child of parent reached by move: an existing one, or a new last child (a variation);
  // with `main`, the child becomes the first (a game's moves are its main line, and moves
  // taken back stay as a variation).
  add(parent, move, main = false) {
    let node = parent.children.find((c) => c.move.hub === move.hub);
    if (!node) {
      node = new Node(this, parent, move);
      parent.children.push(node);
    }
    if (main && parent.children[0] !== node) {
      parent.children.splice(parent.children.indexOf(node), 1);
      parent.children.unshift(node);
    }
    return node;
  }

  mainLine() {
    const out = [this.root];
    for (let n = this.root; n.children.length; n = n.children[0]) out.push(n.children[0]);
    return out;
  }

  // The next node from `node` on the line the user is on: its first child.
  next(node) { return node.children[0] || null; }

  // The last node of the line through `node` (first children from there on).
  end(node) {
    let n = node;
    while (n.children.length) n = n.children[0];
    return n;
  }

  // The game as PDN lines for the server: [{hub, variations: [line, ...]}, ...].
  toLine(node = this.root) {
    const out = [];
    for (let n = node; n.children.length; n = n.children[0]) {
      const [main, ...alts] = n.children;
      out.push({hub: main.move.hub, variations: alts.map((a) => [{hub: a.move.hub, variations: []},
                                                                  ...this.toLine(a)])});
    }
    return out;
  }

  // The move list: main line, variations in parentheses after the move they replace.
  html(text) {
    const out = [];
    this._line(this.root, out, true, text);
    if (this.result) out.push(`<span class="end">${esc(this.result)}</span>`);
    return out.join("");
  }

  _line(parent, out, numbered, text) {
    let need = numbered;
    for (let n = parent; n.children.length; n = n.children[0]) {
      const [main, ...alts] = n.children;
      out.push(this._move(main, need, text));
      need = false;
      for (const a of alts) {
        out.push('<span class="var">(');
        out.push(this._move(a, true, text));
        this._line(a, out, false, text);
        out.push(")</span> ");
        need = true;
      }
    }
  }

  _move(node, numbered, text) {
    const index = node.half - 1;
    const label = index % 2 === 0 || numbered ? `<span class="num">${moveLabel(index)}</span>` : "";
    const cls = node.moveAnn && node.moveAnn.cls ? node.moveAnn.cls : "";
    return `${label}<span class="mv ${cls}" data-id="${node.id}">${esc(text(node.move))}` +
           `${NAG[cls] || ""}</span> `;
  }
}
