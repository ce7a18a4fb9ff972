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
  // with the settings in the query (bookmark that address on the TV). `o`: the
  // heading, the default user (a login of tools/hall_broker.py's ACL), whether the
  // table is asked for and the hall needed.
  function form(root, s, o) {
    const f = document.createElement("form");
    f.className = "connect";
    f.method = "get";
    const h = document.createElement("h1");
    h.textContent = o.title;
    f.append(h);
    const fields = [
      ["broker", "Broker (WebSockets URL)", s.broker || defaultBroker(), "url", true],
      ["user", "User", s.user || o.user || "", "text", false],
      ["password", "Password", s.password, "password", false],
      ["hall", o.hallNeeded ? "Hall" : "Hall (empty: every hall)", s.hall, "text", !!o.hallNeeded],
    ];
    if (o.table) fields.push(["table", "Table", s.table, "text", true]);
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

  // ---- what the tables send, checked ----------------------------------------------------
  // Everything from the broker is checked before it is kept: the topic's names, the
  // size, and every field's type and range (docs/GAME-RECORD.md, docs/HALL.md). What
  // fails is dropped (logged with console.warn), the table's card says it sent
  // something unreadable, and the page goes on with every other message.
  const PHASE_NAMES = ["opening", "choice", "points", "caroms", "final", "over"];
  const NAME = /^[a-vyz0-9-]{1,12}$/;       // app/nameedit.py CHARS, views/hallui.py MAX_NAME
  const KINDS = ["state", "status", "action", "game"];
  const MAX_NUMBER = 2 ** 30 - 1;           // game numbers and positions
  // The broker's message_size_limit (docs/HALL.md): the longest message a board sends of
  // a record (net/records.py PART_MAX) is well below it. The pages read no `part`: a
  // long record's parts are for the archive.
  const MAX_MESSAGE = 65536;
  const BALLS = [1, 3, 5];

  const own = (o, k) => Object.prototype.hasOwnProperty.call(o, k);
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  const intIn = (v, lo, hi) => Number.isInteger(v) && v >= lo && v <= hi;
  const listOf = (v, n, lo, hi) => Array.isArray(v) && v.length === n && v.every((x) => intIn(x, lo, hi));
  // Ascending, no repeats, each one of `allowed`.
  const ascending = (v, allowed) => Array.isArray(v) &&
    v.every((x, i) => Number.isInteger(x) && allowed(x) && (i === 0 || x > v[i - 1]));

  function parseJSON(text) {
    try {
      return JSON.parse(text);
    } catch (e) {
      return undefined;
    }
  }

  // One player's name as firmware/cowboy/names.py check_name() has it: null when it
  // may be a name, else the reason in the same words (the first fault found: not a
  // string, empty, a refused character, too long, a refused end). Code points are
  // looked at one by one (a lone surrogate is one), bytes counted as UTF-8.
  // INVISIBLE: names.py's INVISIBLE, number for number ((first, last) pairs,
  // ascending; host_tests/test_names_invisible.py compares the two).
  const INVISIBLE = [
    0x00ad, 0x00ad, 0x034f, 0x034f, 0x061c, 0x061c, 0x115f, 0x1160,
    0x17b4, 0x17b5, 0x180b, 0x180f, 0x200b, 0x200f, 0x2028, 0x202e,
    0x2060, 0x206f, 0x3164, 0x3164, 0xfe00, 0xfe0f, 0xfeff, 0xfeff,
    0xffa0, 0xffa0, 0xfff0, 0xfff8, 0x1bca0, 0x1bca3, 0x1d173, 0x1d17a,
    0xe0000, 0xe0fff];

  function refused(cp) {
    if (cp < 0x20 || (cp >= 0x7f && cp <= 0x9f)) return "a control character";
    if (cp >= 0xd800 && cp <= 0xdfff) return "a surrogate";
    for (let i = 0; i < INVISIBLE.length; i += 2) {
      if (cp < INVISIBLE[i]) return null;
      if (cp <= INVISIBLE[i + 1]) return "an invisible formatting character";
    }
    return null;
  }
  const MAX_CHARS = 16;
  const MAX_BYTES = 32;
  const hex4 = (cp) => "U+" + cp.toString(16).toUpperCase().padStart(4, "0");

  function checkName(name) {
    if (typeof name !== "string") return "is not a string";
    if (!name.length) return "is empty";
    let chars = 0;
    let size = 0;
    let first = -1;
    let cp = -1;
    for (const c of name) {
      cp = c.codePointAt(0);
      const bad = refused(cp);
      if (bad) return "has " + bad + " (" + hex4(cp) + ")";
      if (first < 0) first = cp;
      chars++;
      size += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    }
    if (chars > MAX_CHARS) return "is longer than " + MAX_CHARS + " characters";
    if (size > MAX_BYTES) return "is longer than " + MAX_BYTES + " bytes in UTF-8";
    for (const [end, where] of [[first, "begins"], [cp, "ends"]]) {
      if (end === 0x20) return where + " with a space";
      if (end === 0xa0) return where + " with a no-break space (U+00A0)";
    }
    return null;
  }

  // A "names" value (GAME-RECORD.md): n strings, each a name by checkName().
  function namesOk(v, n) {
    return Array.isArray(v) && v.length === n && v.every((x) => checkName(x) === null);
  }

  // A player as the pages name them: the name when the game has names, else P1, P2 ...
  // (always set as text, never as markup).
  function who(s, n) {
    return s.names ? s.names[n - 1] : "P" + n;
  }

  // A firmware version as firmware/version.py writes it ("1.10.0": three numbers of 1 to
  // 4 digits, no leading zeros), as [major, minor, patch]; null for anything else.
  function readVersion(v) {
    if (typeof v !== "string") return null;
    const m = /^(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})\.(0|[1-9][0-9]{0,3})$/.exec(v);
    return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : null;
  }

  // Which of two versions is newer: < 0, 0 or > 0; null (a table whose state does not say
  // it: a firmware before 1.0.0) is older than any version.
  function compareVersions(a, b) {
    if (a === b) return 0;
    if (a === null) return -1;
    if (b === null) return 1;
    const x = readVersion(a), y = readVersion(b);
    for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i] - y[i];
    return 0;
  }

  // The state object of GAME-RECORD.md as a new object with exactly its keys, or null.
  // `names` is optional; when present it must be valid (else the state is refused);
  // `firmware` (the board's version, docs/HALL.md) too: kept as `firmware`, else null.
  function readState(text) {
    const s = parseJSON(text);
    if (!isObject(s)) return null;
    const keys = ["players", "scores", "inning", "shooter", "phase", "fouls", "out", "winner",
      "cue_in_hand", "off_table"];
    if (!keys.every((k) => own(s, k))) return null;
    const n = s.players;
    if (!intIn(n, 2, 8)) return null;
    if (!listOf(s.scores, n, 0, 101) || !listOf(s.fouls, n, 0, 3)) return null;
    if (!intIn(s.inning, 0, 100)) return null;
    if (typeof s.phase !== "string" || !PHASE_NAMES.includes(s.phase)) return null;
    const over = s.phase === "over";
    if (over ? s.shooter !== null : !intIn(s.shooter, 1, n)) return null;
    if (s.winner !== null && !(over && intIn(s.winner, 1, n))) return null;
    if (!ascending(s.out, (x) => x >= 1 && x <= n)) return null;
    if (typeof s.cue_in_hand !== "boolean") return null;
    if (!ascending(s.off_table, (x) => BALLS.includes(x))) return null;
    if (own(s, "names") && !namesOk(s.names, n)) return null;
    if (own(s, "firmware") && !readVersion(s.firmware)) return null;
    const state = {};
    for (const k of keys) state[k] = Array.isArray(s[k]) ? s[k].slice() : s[k];
    if (own(s, "names")) state.names = s.names.slice();
    state.firmware = own(s, "firmware") ? s.firmware : null;
    return state;
  }

  // {game, pos} of an action message, or null.
  function readAction(text) {
    const a = parseJSON(text);
    if (!isObject(a) || !own(a, "game") || !own(a, "pos") || !own(a, "action")) return null;
    if (!intIn(a.game, 1, MAX_NUMBER) || !intIn(a.pos, 1, MAX_NUMBER) || !isObject(a.action)) {
      return null;
    }
    return { game: a.game, pos: a.pos };
  }

  // A finished game as published on `game`: "# game G" (G from 1, plain ASCII digits),
  // the header, the actions. {game, players, actions}, or null.
  function parseRecord(text) {
    const m = /^# game ([1-9][0-9]{0,9})$/.exec(text.split("\n", 1)[0]);
    const lines = text.split("\n").map((l) => l.trim()).filter((l) => l);
    if (!m || Number(m[1]) > MAX_NUMBER) return null;
    const body = lines.filter((l) => !l.startsWith("#"));
    const header = parseJSON(body[0]);
    if (!isObject(header) || !own(header, "players") || !intIn(header.players, 2, 8)) return null;
    if (own(header, "opener") && !intIn(header.opener, 1, header.players)) return null;
    if (own(header, "names") && !namesOk(header.names, header.players)) return null;
    return { game: Number(m[1]), players: header.players, actions: body.length - 1,
      names: own(header, "names") ? header.names.slice() : null };
  }

  // [hall, table, kind] of a topic cowboy/<hall>/<table>/<kind> with valid names, or null.
  function readTopic(topic) {
    const parts = topic.split("/");
    if (parts.length !== 4 || parts[0] !== "cowboy" || !NAME.test(parts[1]) ||
        !NAME.test(parts[2]) || !KINDS.includes(parts[3])) return null;
    return parts.slice(1);
  }

  // The archive's standings of the night (tools/hall_archive.py, docs/HALL.md
  // "Standings"), retained on cowboy-archive/<hall>/standings: {hall, night, games,
  // rows}, each row the columns of `--standings --format jsonl`. A new object, or null.
  const STANDINGS_COLUMNS = ["rank", "name", "games", "wins", "points", "innings", "average",
    "best", "fouls", "out"];
  const MAX_ROWS = 1000;

  function readStandings(text) {
    const m = parseJSON(text);
    if (!isObject(m) || !NAME.test(m.hall) || typeof m.night !== "string" ||
        !/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(m.night) || !intIn(m.games, 0, MAX_NUMBER) ||
        !Array.isArray(m.rows) || m.rows.length > MAX_ROWS) return null;
    const rows = [];
    for (const r of m.rows) {
      if (!isObject(r) || checkName(r.name) !== null) return null;
      const row = { name: r.name };
      for (const k of STANDINGS_COLUMNS) {
        if (k === "name") continue;
        const v = r[k];
        if (k === "average" ? !(typeof v === "number" && v >= 0 && v <= 101) : !intIn(v, 0, MAX_NUMBER)) {
          return null;
        }
        row[k] = v;
      }
      rows.push(row);
    }
    return { hall: m.hall, night: m.night, games: m.games, rows };
  }

  // The hall of a standings topic cowboy-archive/<hall>/standings, or null.
  function standingsTopic(topic) {
    const parts = topic.split("/");
    return parts.length === 3 && parts[0] === "cowboy-archive" && NAME.test(parts[1]) &&
      parts[2] === "standings" ? parts[1] : null;
  }

  // The standings as a table (every cell text).
  function standingsTable(st) {
    const heads = ["#", "Player", "Games", "Wins", "Points", "Innings", "Average", "Best",
      "Fouls", "Out"];
    const table = el("table", "standings");
    const cap = el("caption", "", "Standings, night of " + st.night + ": " + st.games +
      (st.games === 1 ? " game" : " games"));
    table.append(cap);
    const head = el("tr");
    for (const h of heads) head.append(el("th", "", h));
    const thead = el("thead");
    thead.append(head);
    table.append(thead);
    const body = el("tbody");
    for (const r of st.rows) {
      const tr = el("tr");
      for (const k of STANDINGS_COLUMNS) {
        const v = k === "average" ? r.average.toFixed(2) : String(r[k]);
        tr.append(el("td", k === "name" ? "who" : "num", v));
      }
      body.append(tr);
    }
    table.append(body);
    return table;
  }

  const WHAT = { state: "state", status: "status", action: "action", game: "game record" };

  // Keeps every table (key "hall/table") and the finished games; `changed(table)`
  // and `finished()` are called when something shown changed.
  class Hall {
    constructor(onTable, onFinished) {
      this.tables = new Map();
      this.finished = [];             // newest first
      this.refused = 0;               // messages dropped, of every table and topic
      this.onRefused = () => {};
      this.standings = new Map();     // hall -> the archive's standings
      this.onStandings = () => {};
      this.onTable = onTable;
      this.onFinished = onFinished;
    }

    // The newest firmware a table of this page runs (its state says which); null when
    // none says.
    newestFirmware() {
      let newest = null;
      for (const o of this.tables.values()) {
        if (o.state && compareVersions(o.state.firmware, newest) > 0) newest = o.state.firmware;
      }
      return newest;
    }

    // Whether table t runs a firmware older than the newest a table of this page runs;
    // false while its state is not known.
    olderFirmware(t) {
      if (!t.state) return false;
      return compareVersions(t.state.firmware, this.newestFirmware()) < 0;
    }

    table(hall, name) {
      const key = hall + "/" + name;
      let t = this.tables.get(key);
      if (!t) {
        t = { key, hall, name, state: null, status: "", game: 0, pos: 0, reopen: 0,
          bad: "", badKind: "", seen: new Map() };   // seen: game -> its newest position
        this.tables.set(key, t);
      }
      return t;
    }

    // A message as MQTT.js hands it over (`payload` bytes, or a string).
    receive(topic, payload) {
      const sh = standingsTopic(topic);
      if (sh) {
        this.standingsIn(topic, sh, payload);
        return;
      }
      const where = readTopic(topic);
      if (!where) {
        this.refuse("a topic outside cowboy/<hall>/<table>/<kind> with valid names: " +
          JSON.stringify(topic.slice(0, 80)));
        return;
      }
      if (!payload.length) return;    // a retained message deleted: nothing to show
      const t = this.table(where[0], where[1]);
      const kind = where[2];
      let text = null;
      if (payload.length <= MAX_MESSAGE) {
        try {
          text = typeof payload === "string" ? payload
            : new TextDecoder("utf-8", { fatal: true }).decode(payload);
        } catch (e) {
          text = null;
        }
      }
      let ok = false;
      if (text !== null) {
        try {
          ok = this.message(t, kind, text);
        } catch (e) {
          ok = false;
        }
      }
      if (ok) {
        if (t.badKind === kind) this.mark(t, "", "");
      } else {
        this.refuse((text === null ? "a message too long or not UTF-8" : "an unreadable " +
          WHAT[kind]) + " on " + topic);
        this.mark(t, kind, "unreadable " + WHAT[kind]);
      }
    }

    standingsIn(topic, hall, payload) {
      if (!payload.length) {
        this.standings.delete(hall);
        this.onStandings(hall);
        return;
      }
      let st = null;
      if (payload.length <= MAX_MESSAGE) {
        try {
          st = readStandings(typeof payload === "string" ? payload
            : new TextDecoder("utf-8", { fatal: true }).decode(payload));
        } catch (e) {
          st = null;
        }
      }
      if (!st || st.hall !== hall) {
        this.refuse("unreadable standings on " + topic);
        return;
      }
      this.standings.set(hall, st);
      this.onStandings(hall);
    }

    refuse(why) {
      this.refused++;
      console.warn("hall: refused " + why);
      this.onRefused(this.refused);
    }

    mark(t, kind, text) {
      if (t.bad === text && t.badKind === kind) return;
      t.bad = text;
      t.badKind = kind;
      this.onTable(t);
    }

    // One message of table t; false when it is not what the topic carries.
    message(t, kind, text) {
      if (kind === "state") {
        const s = readState(text);
        if (!s) return false;
        const was = t.state;
        const moved = !was || compareVersions(s.firmware, was.firmware) !== 0;
        const newest = moved ? this.newestFirmware() : null;
        t.state = s;
        // the page's newest firmware changed: the others' marks with it, each card drawn
        // again (not on every table's first state: N states at page load, N cards each)
        if (moved && compareVersions(this.newestFirmware(), newest) !== 0) {
          for (const o of this.tables.values()) if (o !== t && o.state) this.onTable(o);
        }
        // An ended game that goes on: an undo (the next action is the same game's) or
        // the next game (its first action has the next game number).
        if (s.phase !== "over" && was && was.phase === "over") t.reopen = t.game;
        this.onTable(t);
      } else if (kind === "status") {
        if (text !== "online" && text !== "offline") return false;
        t.status = text;
        this.onTable(t);
      } else if (kind === "action") {
        const a = readAction(text);
        if (!a) return false;
        // New: a position of its game not seen before (a resend after a reconnect
        // repeats positions). The newest such action names the game in progress, so
        // one forged action with a far game number is undone by the table's next.
        if (a.pos <= (t.seen.get(a.game) || 0)) return true;
        t.seen.delete(a.game);
        t.seen.set(a.game, a.pos);
        if (t.seen.size > 4) t.seen.delete(t.seen.keys().next().value);
        const changed = a.game !== t.game;
        if (t.reopen && t.reopen === a.game) this.reopened(t, a.game);
        t.reopen = 0;
        t.game = a.game;
        t.pos = a.pos;
        // The state comes before the action it follows: an ended state is game G's.
        if (t.state && t.state.phase === "over") this.result(t, a.game, t.state, true);
        if (changed) this.onTable(t);
      } else {
        const r = parseRecord(text);
        if (!r) return false;
        this.record(t, r);
      }
      return true;
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
      e.names = r.names;
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
  // A connection to the broker of settings `s` (MQTT.js over WebSockets): subscribes
  // to `topics` (QoS 1) on every (re)connect, hands each message to `onMessage(topic,
  // payload)` (an exception is logged, never thrown into MQTT.js: its stream would
  // stop); `status(text, ok)` reports the connection. The MQTT.js client.
  function open(s, topics, status, onMessage) {
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
    client.on("message", (topic, payload) => {
      try {
        onMessage(topic, payload);
      } catch (e) {
        console.warn("hall: " + (e && e.message ? e.message : e));
      }
    });
    return client;
  }

  // Subscribes (read-only) to every table of `s.hall` (all halls when empty), or to one
  // table, and with `standings` to the archive's standings of the hall(s).
  function connect(s, hall, status, standings) {
    const prefix = "cowboy/" + (s.hall || "+") + "/" + (s.table || "+") + "/";
    const topics = ["state", "status", "action", "game"].map((k) => prefix + k);
    if (standings) topics.push("cowboy-archive/" + (s.hall || "+") + "/standings");
    return open(s, topics, status, (topic, payload) => hall.receive(topic, payload));
  }

  // ---- a table's game in words and rows ----------------------------------------------------
  const ballList = (balls) => balls.join(" and ");

  // The stage as a sentence, as the simulator says it.
  function detail(s) {
    if (s.phase === "over") {
      if (s.winner === null) return "Game over";
      const w = who(s, s.winner);
      return s.scores[s.winner - 1] === 101 ? w + " wins with the 101st point" : w + " wins: every other player is out";
    }
    const at = who(s, s.shooter);
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
    const list = el("ol", s.names ? "players named" : "players");
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
      li.append(el("span", "who", who(s, n)));
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

  return { PHASES, settings, form, Hall, open, connect, detail, rows, extras, el, compareNames,
    readState, parseRecord, readTopic, who, checkName, parseJSON, isObject, standingsTable,
    compareVersions,
    NAME, MAX_MESSAGE };
})();
