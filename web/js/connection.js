// One WebSocket to the duel server (PROTOCOL.md): requests with refs, events to
// a listener, and automatic reconnection with backoff. After a reconnect the app
// re-authenticates and resumes its duel (see app.js).

export class Connection {
  constructor(url, { onEvent, onOpen, onDown }) {
    this.url = url;
    this.onEvent = onEvent;
    this.onOpen = onOpen;
    this.onDown = onDown;
    this.pending = new Map();
    this.nextRef = 1;
    this.delay = 500;
    this.clockOffset = 0; // server time minus local time, from server_time_ms
    this.open();
  }

  open() {
    const ws = new WebSocket(this.url, "duel.v1");
    this.ws = ws;
    ws.onopen = () => {
      this.delay = 500;
      this.onOpen();
    };
    ws.onmessage = (message) => {
      let data;
      try { data = JSON.parse(message.data); } catch { return; }
      if (typeof data.server_time_ms === "number") this.clockOffset = data.server_time_ms - Date.now();
      if ((data.op === "reply" || data.op === "error") && this.pending.has(data.ref)) {
        const { resolve } = this.pending.get(data.ref);
        this.pending.delete(data.ref);
        resolve(data);
      } else if (data.op === "event") {
        this.onEvent(data);
      }
    };
    ws.onclose = () => {
      for (const { resolve } of this.pending.values()) resolve({ op: "error", code: "unavailable", message: "connection lost" });
      this.pending.clear();
      this.onDown();
      setTimeout(() => this.open(), this.delay);
      this.delay = Math.min(this.delay * 2, 8000);
    };
  }

  get isOpen() { return this.ws && this.ws.readyState === WebSocket.OPEN; }

  // Sends an op; resolves with the reply or error message (never rejects).
  request(op, fields = {}) {
    return new Promise((resolve) => {
      if (!this.isOpen) return resolve({ op: "error", code: "unavailable", message: "not connected" });
      const ref = this.nextRef++;
      this.pending.set(ref, { resolve });
      this.ws.send(JSON.stringify({ op, ref, ...fields }));
    });
  }

  // The server's clock now, in ms (deadlines are on the server's clock).
  serverNow() { return Date.now() + this.clockOffset; }

  // For tests and for the user: drop the socket and let reconnection happen.
  drop() { if (this.ws) this.ws.close(); }
}
