// What the hall view (index.html) and the overlay (overlay.html) share: the settings
// from the page's address or the form, the broker connection (MQTT.js over
// WebSockets, read-only), the tables as the boards publish them (docs/HALL.md), and
// a table's game drawn as player rows. Plain script (no modules), so the pages also
// work from any static host; MQTT.js (mqtt.min.js) is loaded before it.
"use strict";

const CowboyHall = (() => {
  const PHASES = {
    opening: "Opening",
    choice: "Choice",
    points: "To 90",
    caroms: "Caroms",
    final: "Call 101",
    over: "Game over",
  };
  const FOUL_MARK = "✖";
  const AT_MARK = "▶";

  // ---- settings -----------------------------------------------------------------------
  function settings() {
    const q = new URLSearchParams(location.search);
    const get = (k) => (q.get(k) || "").trim();
    return {
      broker: get("broker"),
      user: get("user"),
      password: q.get("password") || "",
      hall: get("hall"),
      table: get("table"),
    };
  }

  function defaultBroker() {
    const host = location.hostname || "localhost";
    return (location.protocol === "https:" ? "wss://" : "ws://") + host + ":9001/";
  }

  // The form shown when the address does not say which broker: it reloads the page
  // with the settings in the query (bookmark that address on the TV).
  function form(root, s, withTable) {
    const f = document.createElement("form");
    f.className = "connect";
    f.method = "get";
    const h = document.createElement("h1");
    h.textContent = withTable ? "Cowboy overlay: connect" : "Cowboy hall: connect";
    f.append(h);
    const fields = [
      ["broker", "Broker (WebSockets URL)", s.broker || defaultBroker(), "url", true],
      ["user", "User", s.user || "hall", "text", false],
      ["password", "Password", s.password, "password", false],
      ["hall", "Hall (empty: every hall)", s.hall, "text", false],
    ];
    if (withTable) fields.push(["table", "Table", s.table, "text", true]);
    for (const [name, text, value, type, required] of fields) {
      const label = document.createElement("label");
      label.textContent = text;
      const input = document.createElement("input");
      input.name = name;
      input.type = type === "url" ? "text" : type;
      input.value = value;
      input.required = required;
      input.autocomplete = "off";
      label.append(input);
      f.append(label);
    }
    const go = document.createElement("button");
    go.type = "submit";
    go.textContent = "Connect";
    f.append(go);
    root.replaceChildren(f);
  }

  // ---- the tables -------------------------------------------------------------------------
  function validState(s) {
    return s && Number.isInteger(s.players) && s.players >= 2 && s.players <= 8 &&
      Array.isArray(s.scores) && s.scores.length === s.players &&
      Array.isArray(s.fouls) && s.fouls.length === s.players &&
      Array.isArray(s.out) && Array.isArray(s.off_table) && s.phase in PHASES;
  }

  // A finished game as published on `game`: "# game G", the header, the actions.
  function parseRecord(text) {
    const lines = text.split("\n").map((l) => l.trim()).filter((l) => l);
    const m = /^#\s*game\s+(\d+)/.exec(lines[0] || "");
    if (!m) return null;
    const body = lines.filter((l) => !l.startsWith("#"));
    let header;
    try {
      header = JSON.parse(body[0]);
    } catch (e) {
      return null;
    }
    if (!header || !Number.isInteger(header.players)) return null;
    return { game: Number(m[1]), players: header.players, actions: body.length - 1 };
  }

  // Keeps every table (key "hall/table") and the finished games; `changed(table)`
  // and `finished()` are called when something shown changed.
  class Hall {
    constructor(onTable, onFinished) {
      this.tables = new Map();
      this.finished = [];             // newest first
      this.onTable = onTable;
      this.onFinished = onFinished;
    }

    table(hall, name) {
      const key = hall + "/" + name;
      let t = this.tables.get(key);
      if (!t) {
        t = { key, hall, name, state: null, status: "", game: 0, pos: 0, reopen: 0 };
        this.tables.set(key, t);
      }
      return t;
    }

    message(topic, text) {
      const parts = topic.split("/");
      if (parts.length !== 4 || parts[0] !== "cowboy") return;
      const t = this.table(parts[1], parts[2]);
      const kind = parts[3];
      if (kind === "state") {
        let s;
        try {
          s = JSON.parse(text);
        } catch (e) {
          s = null;
        }
        if (!validState(s)) {
          console.warn("hall: a state that is not a game state on " + topic);
          return;
        }
        const was = t.state;
        t.state = s;
        // An ended game that goes on: an undo (the next action is the same game's) or
        // the next game (its first action has the next game number).
        if (s.phase !== "over" && was && was.phase === "over") t.reopen = t.game;
        this.onTable(t);
      } else if (kind === "status") {
        t.status = text;
        this.onTable(t);
      } else if (kind === "action") {
        let a;
        try {
          a = JSON.parse(text);
        } catch (e) {
          return;
        }
        if (!a || !Number.isInteger(a.game) || !Number.isInteger(a.pos)) return;
        const newer = a.game > t.game || (a.game === t.game && a.pos > t.pos);
        if (!newer) return;
        const changed = a.game !== t.game;
        if (t.reopen && t.reopen === a.game) this.reopened(t, a.game);
        t.reopen = 0;
        t.game = a.game;
        t.pos = a.pos;
        // The state comes before the action it follows: an ended state is game G's.
        if (t.state && t.state.phase === "over") this.result(t, a.game, t.state, true);
        if (changed) this.onTable(t);
      } else if (kind === "game") {
        const r = parseRecord(text);
        if (r) this.record(t, r);
      }
    }

    entry(t, game) {
      return this.finished.find((e) => e.key === t.key && e.game === game);
    }

    // Final scores and winner of game G of table t, from a state with phase "over".
    // `sure`: the actions said the state is G's; otherwise (a retained record met a
    // retained ended state at start-up) a later record taking the same state wins.
    result(t, game, state, sure) {
      let e = this.entry(t, game);
      if (!e) {
        e = { key: t.key, hall: t.hall, table: t.name, game, players: state.players,
          actions: null, result: null, at: sure ? new Date() : null };
        this.finished.unshift(e);
      }
      if (!sure) {
        for (const other of this.finished) {
          if (other !== e && other.key === t.key && other.result === state && other.game < game) {
            other.result = null;
          }
        }
      }
      e.result = state;
      this.sort();
      this.onFinished();
    }

    record(t, r) {
      let e = this.entry(t, r.game);
      if (!e) {
        e = { key: t.key, hall: t.hall, table: t.name, game: r.game, players: r.players,
          actions: r.actions, result: null, at: t.game ? new Date() : null };
        this.finished.unshift(e);
      }
      e.actions = r.actions;
      e.players = r.players;
      if (!e.result && t.state && t.state.phase === "over" && t.state.players === r.players &&
          (t.game === 0 || t.game === r.game)) {
        this.result(t, r.game, t.state, t.game === r.game);
        return;
      }
      this.sort();
      this.onFinished();
    }

    // An undo after the end: the game is on again, its result is not final.
    reopened(t, game) {
      const e = this.entry(t, game);
      if (e && e.result) {
        e.result = null;
        this.onFinished();
      }
    }

    sort() {
      this.finished.sort((a, b) => ((b.at ? b.at.getTime() : 0) - (a.at ? a.at.getTime() : 0)) ||
        compareNames(a.table, b.table) || b.game - a.game);
    }

    sorted() {
      return [...this.tables.values()].sort((a, b) =>
        compareNames(a.hall, b.hall) || compareNames(a.name, b.name));
    }
  }

  function compareNames(a, b) {
    return a.localeCompare(b, undefined, { numeric: true, sensitivity: "base" });
  }

  // ---- the broker ---------------------------------------------------------------------------
  // Subscribes (read-only) to every table of `s.hall` (all halls when empty), or to one
  // table; `status(text, ok)` reports the connection.
  function connect(s, hall, status) {
    const prefix = "cowboy/" + (s.hall || "+") + "/" + (s.table || "+") + "/";
    const topics = ["state", "status", "action", "game"].map((k) => prefix + k);
    const id = "cowboy-view-" + Math.random().toString(16).slice(2, 10);
    const client = mqtt.connect(s.broker, {
      username: s.user || undefined,
      password: s.password || undefined,
      clientId: id,
      clean: true,
      protocolVersion: 4,
      keepalive: 30,
      connectTimeout: 5000,
      reconnectPeriod: 2000,
    });
    const decoder = new TextDecoder();
    status("connecting to " + s.broker, false);
    client.on("connect", () => {
      client.subscribe(topics, { qos: 1 }, (err, granted) => {
        if (err || !granted || granted.some((g) => g.qos === 128)) {
          status("the broker refused the subscription (user " + (s.user || "none") + ")", false);
          return;
        }
        status("connected", true);
        document.documentElement.dataset.connected = "1";
      });
    });
    client.on("reconnect", () => status("reconnecting to " + s.broker, false));
    client.on("offline", () => status("broker unreachable: " + s.broker, false));
    client.on("error", (e) => status("broker: " + (e && e.message ? e.message : e), false));
    client.on("message", (topic, payload) => hall.message(topic, decoder.decode(payload)));
    return client;
  }

  // ---- a table's game in words and rows ----------------------------------------------------
  const ballList = (balls) => balls.join(" and ");

  // The stage as a sentence, as the simulator says it.
  function detail(s) {
    if (s.phase === "over") {
      if (s.winner === null) return "Game over";
      const w = "P" + s.winner;
      return s.scores[s.winner - 1] === 101 ? w + " wins with the 101st point" : w + " wins: every other player is out";
    }
    const at = "P" + s.shooter;
    if (s.phase === "choice") return at + " chooses: the opening again, or take the table";
    if (s.phase === "opening") return at + " opens: the 3 ball first";
    const total = s.scores[s.shooter - 1] + s.inning;
    if (s.phase === "points") return at + " needs " + (90 - total) + " for exactly 90";
    if (s.phase === "caroms") return at + ": caroms only, " + (100 - total) + " to go";
    return at + " calls the 101st point";
  }

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined) e.textContent = text;
    return e;
  }

  // The rows of a game: one per player (marker, name, fouls or OUT/WINNER, the run,
  // the banked score), then the table's extras (cue ball in hand, balls held off).
  function rows(s) {
    const list = el("ol", "players");
    for (let i = 0; i < s.players; i++) {
      const n = i + 1;
      const li = el("li", "player");
      const out = s.out.includes(n);
      const at = s.shooter === n;
      const won = s.winner === n;
      if (at) li.classList.add("at");
      if (out) li.classList.add("out");
      if (won) li.classList.add("winner");
      li.append(el("span", "mark", at ? AT_MARK : ""));
      li.append(el("span", "who", "P" + n));
      const tag = el("span", "tag", won ? "WINNER" : out ? "OUT" : "");
      li.append(tag);
      li.append(el("span", "fouls", FOUL_MARK.repeat(s.fouls[i])));
      li.append(el("span", "run", at && s.inning ? "+" + s.inning : ""));
      li.append(el("span", "score", String(s.scores[i])));
      list.append(li);
    }
    return list;
  }

  function extras(s) {
    const box = el("div", "extras");
    if (s.cue_in_hand) box.append(el("span", "hand", "cue ball in hand"));
    if (s.off_table.length) {
      box.append(el("span", "off", (s.off_table.length > 1 ? "balls " : "ball ") +
        ballList(s.off_table) + " off the table"));
    }
    return box;
  }

  return { PHASES, settings, form, Hall, connect, detail, rows, extras, el, compareNames };
})();
