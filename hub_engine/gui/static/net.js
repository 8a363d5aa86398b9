// The tab's connection to the server: one WebSocket for rules questions and engine searches,
// HTTP POST for files. Every request carries an id; answers (and a search's `info` and `done`)
// carry it back.

const ANSWERS = new Set(["state", "position", "game", "pdn", "draw"]);

export class Net {
  constructor(handlers) {
    this.handlers = handlers;          // {info, done, table, engine, hello, refused, closed, error}
    this.pending = new Map();          // id -> {resolve, reject}
    this.nextId = 1;
    this.open = false;
    this.refused = false;
    const url = new URL("ws", location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    this.ws = new WebSocket(url);
    this.ready = new Promise((resolve) => {
      this.ws.addEventListener("open", () => {
        this.open = true;
        resolve();
      });
    });
    this.ws.addEventListener("message", (e) => this.receive(JSON.parse(e.data)));
    this.ws.addEventListener("close", () => {
      this.open = false;
      for (const p of this.pending.values()) p.reject(new Error("the connection is closed"));
      this.pending.clear();
      if (!this.refused && this.handlers.closed) this.handlers.closed();
    });
  }

  id() { return this.nextId++; }

  send(msg) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  // A request whose answer comes back with the same id; rejected with the server's message.
  async request(msg) {
    await this.ready;
    const id = msg.id || this.id();
    return new Promise((resolve, reject) => {
      this.pending.set(id, {resolve, reject});
      if (!this.send(Object.assign({}, msg, {id}))) {
        this.pending.delete(id);
        reject(new Error("not connected to the server"));
      }
    });
  }

  receive(msg) {
    if (msg.type === "refused") this.refused = true;
    if (ANSWERS.has(msg.type) && this.pending.has(msg.id)) {
      this.pending.get(msg.id).resolve(msg);
      this.pending.delete(msg.id);
      return;
    }
    if (msg.type === "error" && msg.id != null && this.pending.has(msg.id)) {
      this.pending.get(msg.id).reject(new Error(msg.message));
      this.pending.delete(msg.id);
      return;
    }
    const h = this.handlers[msg.type];
    if (h) h(msg);
  }
}

// A file (or text) to the server: the parsed answer, or an Error with the server's message.
export async function upload(body, params) {
  const url = new URL("api/upload", location.href);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  let r;
  try {
    r = await fetch(url, {method: "POST", body, headers: {"content-type": "application/octet-stream"}});
  } catch (e) {
    throw new Error("the file could not be sent to the server");
  }
  let data;
  try { data = await r.json(); } catch (e) { data = {error: `the server answered ${r.status}`}; }
  if (!r.ok) throw new Error(data.error || `the server answered ${r.status}`);
  return data;
}
