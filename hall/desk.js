// The desk (docs/HALL.md, "A club night"): the evening's roster, a round robin or
// the pairings the desk types, the tables, "send" per game (a retained offer on
// cowboy-desk/<hall>/<table>/offer, net/offers.py), each table's answer, and the
// archive's standings. Settings: ?broker=ws://HOST:9001/&user=desk&password=...
// &hall=club (the form asks when broker or hall is missing). Every name and every
// text a table sends is set as text (textContent), never as markup.
"use strict";

const CowboyDesk = (() => {
  const H = CowboyHall;
  const el = H.el;
  // firmware/cowboy/houserules.py NAMES, in its order (the offer's "rules")
  const HOUSE_RULES = [
    ["carom_no_cushion", "a carom below 100 needs no cushion"],
    ["pocket_90s_no_foul", "90–99: a pocketed ball scores nothing, no foul"],
    ["win_pockets_nothing", "at 100: pocketing an object ball is a foul"],
    ["take_as_lies", "take after a failed opening: the balls as they lie"],
  ];
  const ID_CHARS = /^[A-Za-z0-9_.:-]{1,40}$/;     // net/offers.py ID_CHARS, ID_MAX
  const ANSWERS = ["seen", "accepted", "refused"];
  const WHY_MAX = 200;

  // ---- the roster ------------------------------------------------------------------------
  // A name as typed, as tools/record.py typed_names() reads each one (docs/GAME-RECORD.md,
  // "Typing names"): the spaces (U+0020 only) before and after it dropped.
  const unspaced = (t) => t.replace(/^ +| +$/g, "");

  // {names: the valid names in order, bad: [{line, name, why}]} of the roster's text:
  // one name a line, typed (an empty line is skipped), each checked as the record
  // header checks names (H.checkName: firmware/cowboy/names.py), each once in the roster.
  function readRoster(text) {
    const names = [];
    const bad = [];
    const where = new Map();
    text.split("\n").forEach((raw, i) => {
      const name = unspaced(raw.endsWith("\r") ? raw.slice(0, -1) : raw);
      if (name === "") return;
      let why = H.checkName(name);
      if (why === null && where.has(name)) why = "is already on line " + where.get(name);
      if (why !== null) {
        bad.push({ line: i + 1, name, why });
        return;
      }
      where.set(name, i + 1);
      names.push(name);
    });
    return { names, bad };
  }

  // ---- a round robin (the circle method) --------------------------------------------------
  // Every pair of `names` once, in rounds: [{games: [[a, b], ...], bye: name or null}].
  // An odd roster gets a bye (one player sits out each round). The first player stays
  // put and the others turn round it; who is named first (opens) alternates for the
  // first player's games.
  function roundRobin(names) {
    const p = names.slice();
    if (p.length % 2) p.push(null);
    const n = p.length;
    const rounds = [];
    for (let r = 0; r + 1 < n; r++) {
      const games = [];
      let bye = null;
      for (let i = 0; i < n / 2; i++) {
        let a = p[i];
        let b = p[n - 1 - i];
        if (a === null || b === null) {
          bye = a === null ? b : a;
          continue;
        }
        if (i === 0 && r % 2) [a, b] = [b, a];
        games.push([a, b]);
      }
      rounds.push({ games, bye });
      p.splice(1, 0, p.pop());
    }
    return rounds;
  }

  // ---- the pairings ------------------------------------------------------------------------
  // {games: [[a, b], ...], bad: [{line, text, why}]}: one game a line "A v B" (A opens),
  // both players of the roster, each typed (spaces around it dropped); "#" begins a
  // note. A name may hold " v " itself: the line is split where both sides are roster
  // names, and must be so in one place only.
  function readPairings(text, roster) {
    const names = new Set(roster);
    const games = [];
    const bad = [];
    text.split("\n").forEach((raw, i) => {
      const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw;
      if (line.trim() === "" || line.trimStart().startsWith("#")) return;
      const splits = [];
      for (let k = line.indexOf(" v "); k >= 0; k = line.indexOf(" v ", k + 1)) {
        const a = unspaced(line.slice(0, k));
        const b = unspaced(line.slice(k + 3));
        if (names.has(a) && names.has(b)) splits.push([a, b]);
      }
      let why = null;
      if (splits.length !== 1) {
        why = splits.length ? "can be read more than one way" : "is not two players of the roster, as “Anna B v Zoë”";
      } else if (splits[0][0] === splits[0][1]) {
        why = "names one player twice";
      }
      if (why) bad.push({ line: i + 1, text: line, why });
      else games.push(splits[0]);
    });
    return { games, bad };
  }

  // ---- what the tables answer ------------------------------------------------------------
  // A table's answer (net/offers.py answer()): {id, answer, waits?, why?}, or null.
  function readAnswer(text) {
    const a = H.parseJSON(text);
    if (!H.isObject(a) || !ANSWERS.includes(a.answer)) return null;
    if (!(a.id === null || (typeof a.id === "string" && ID_CHARS.test(a.id)))) return null;
    if ("waits" in a && a.waits !== "game" && a.waits !== "operator") return null;
    if ("why" in a && !(typeof a.why === "string" && a.why.length <= WHY_MAX)) return null;
    return { id: a.id, answer: a.answer, waits: a.waits || null, why: a.why || null };
  }

  function answerText(a) {
    if (a.answer === "refused") return "refused: " + (a.why || "no reason given");
    if (a.answer === "accepted") return "accepted";
    if (a.waits === "game") return "seen: waits for the game in progress to end";
    if (a.waits === "operator") return "seen: on the table, waiting for OK";
    return "seen";
  }

  // An offer as the desk keeps it from the retained message: {id, names, opener}, or null.
  function readOffer(text) {
    const o = H.parseJSON(text);
    if (!H.isObject(o) || typeof o.id !== "string" || !ID_CHARS.test(o.id)) return null;
    const names = Array.isArray(o.names) && o.names.every((n) => H.checkName(n) === null)
      ? o.names.slice() : null;
    return { id: o.id, names, players: Number.isInteger(o.players) ? o.players : 0 };
  }

  // A fresh offer id: the table, the time, a few random letters (net/offers.py ID_CHARS).
  let serial = 0;
  function freshId(table) {
    serial++;
    return table + "-" + Date.now().toString(36) + "-" + serial +
      Math.random().toString(36).slice(2, 6);
  }

  return { HOUSE_RULES, readRoster, roundRobin, readPairings, readAnswer, answerText,
    readOffer, freshId };
})();

(() => {
  const H = CowboyHall;
  const D = CowboyDesk;
  const el = H.el;
  const s = H.settings();
  const main = document.getElementById("desk");
  const conn = document.getElementById("conn");
  const refusedBox = document.getElementById("refused");

  if (!s.broker || !s.hall || !H.NAME.test(s.hall)) {
    document.body.classList.add("asking");
    H.form(main, s, { title: "Cowboy desk: connect", user: "desk", hallNeeded: true });
    conn.textContent = "not connected";
    return;
  }
  document.getElementById("hallname").textContent = "· " + s.hall;
  document.title = "Cowboy desk: " + s.hall;

  const rosterIn = document.getElementById("roster");
  const pairingsIn = document.getElementById("pairings");
  const roundSel = document.getElementById("round");
  const rulesBox = document.getElementById("rules");
  const gamesBody = document.querySelector("#games tbody");
  const tablesBody = document.querySelector("#tables tbody");
  const standingsBox = document.getElementById("standings");
  const store = "cowboy-desk:" + s.hall + ":";

  // What the desk knows of each table: status, the offer on the broker (retained),
  // the table's answer; `sent`: the offers this page sent, by id.
  const tables = new Map();
  const sent = new Map();
  const picked = new Map();       // a game ("a\nb") -> the table chosen for it
  const notes = new Map();        // a game -> what became of its offer
  let refused = 0;
  let roster = { names: [], bad: [] };
  let pairings = { games: [], bad: [] };
  let client = null;

  for (const [name, text] of D.HOUSE_RULES) {
    const label = el("label", "rule");
    const box = document.createElement("input");
    box.type = "checkbox";
    box.value = name;
    label.append(box, " " + text);
    rulesBox.append(label);
  }

  function table(name) {
    let t = tables.get(name);
    if (!t) {
      t = { name, status: "", offer: null, answer: null };
      tables.set(name, t);
    }
    return t;
  }

  function refuse(why) {
    refused++;
    console.warn("desk: refused " + why);
    refusedBox.textContent = refused + (refused === 1 ? " message" : " messages") + " refused";
  }

  // ---- the roster and the pairings, as typed ------------------------------------------------
  function checkList(box, bad, what) {
    box.replaceChildren(...bad.map((b) => {
      const li = el("li", "bad");
      li.dataset.line = b.line;
      li.append(el("span", "line", "line " + b.line + ": "), el("span", "text", what(b)),
        el("span", "why", " " + b.why));
      return li;
    }));
  }

  function readInputs() {
    roster = D.readRoster(rosterIn.value);
    const n = roster.names.length;
    document.getElementById("roster-count").textContent = n + (n === 1 ? " player" : " players") +
      (roster.bad.length ? ", " + roster.bad.length + " refused" : "");
    checkList(document.getElementById("roster-check"), roster.bad, (b) => b.name);
    pairings = D.readPairings(pairingsIn.value, roster.names);
    checkList(document.getElementById("pairing-check"), pairings.bad, (b) => b.text);
    const rounds = Math.max(0, n + (n % 2) - 1);
    if (roundSel.options.length !== rounds) {
      const keep = roundSel.value;
      roundSel.replaceChildren(...Array.from({ length: rounds }, (_, i) => {
        const o = el("option", "", String(i + 1));
        o.value = String(i + 1);
        return o;
      }));
      if (keep && Number(keep) <= rounds) roundSel.value = keep;
    }
    try {
      localStorage.setItem(store + "roster", rosterIn.value);
      localStorage.setItem(store + "pairings", pairingsIn.value);
    } catch (e) { /* private mode: nothing kept */ }
    drawGames();
  }

  // The selected round of the round robin into the pairings (a bye as a note).
  function robin() {
    const rounds = D.roundRobin(roster.names);
    if (!rounds.length) return;
    const r = rounds[Math.max(0, Number(roundSel.value || 1) - 1)];
    const lines = ["# round " + (roundSel.value || 1) + " of " + rounds.length];
    for (const [a, b] of r.games) lines.push(a + " v " + b);
    if (r.bye !== null) lines.push("# bye: " + r.bye);
    pairingsIn.value = lines.join("\n") + "\n";
    readInputs();
  }

  // ---- the games of the pairings: a table each, "send" ---------------------------------------
  const sortedTables = () => [...tables.keys()].sort(H.compareNames);

  function drawGames() {
    const names = sortedTables();
    const online = names.filter((n) => tables.get(n).status === "online");
    const rows = pairings.games.map(([a, b], i) => {
      const tr = el("tr", "game");
      tr.dataset.game = i + 1;
      const who = el("td", "who");
      who.append(el("span", "name a", a), el("span", "vs", " v "), el("span", "name b", b));
      tr.append(who);
      const pick = document.createElement("select");
      pick.className = "table";
      for (const n of names) {
        const o = el("option", "", n + (tables.get(n).status === "offline" ? " (offline)" : ""));
        o.value = n;
        pick.append(o);
      }
      const key = a + "\n" + b;
      const dflt = picked.has(key) && tables.has(picked.get(key)) ? picked.get(key)
        : online[i] || names[i];
      if (dflt) pick.value = dflt;
      pick.addEventListener("change", () => picked.set(key, pick.value));
      const cell = el("td");
      cell.append(pick);
      tr.append(cell);
      const go = el("button", "send", "send to table");
      go.type = "button";
      go.disabled = !names.length;
      const said = el("td", "sent", notes.get(key) || "");
      go.addEventListener("click", () => send(pick.value, [a, b], said));
      const c2 = el("td");
      c2.append(go);
      tr.append(c2, said);
      return tr;
    });
    gamesBody.replaceChildren(...rows);
  }

  function rules() {
    return [...rulesBox.querySelectorAll("input:checked")].map((b) => b.value);
  }

  function send(name, names, said) {
    if (!client || !name) return;
    const id = D.freshId(name);
    const offer = { id, players: 2, opener: 1, names, rules: rules() };
    const topic = "cowboy-desk/" + s.hall + "/" + name + "/offer";
    const key = names[0] + "\n" + names[1];
    sent.set(id, { table: name, names });
    picked.set(key, name);
    said.textContent = "sending " + id + " to " + name;
    client.publish(topic, JSON.stringify(offer), { qos: 1, retain: true }, (err) => {
      const note = err ? "not sent: " + (err.message || err) : "sent to " + name + " (" + id + ")";
      notes.set(key, note);
      if (said.isConnected) said.textContent = note;
      else drawGames();
    });
  }

  function withdraw(name) {
    if (client) client.publish("cowboy-desk/" + s.hall + "/" + name + "/offer", "", { qos: 1, retain: true });
  }

  // ---- the tables -----------------------------------------------------------------------------
  function drawTables() {
    const rows = sortedTables().map((n) => {
      const t = tables.get(n);
      const tr = el("tr", "table");
      tr.dataset.table = n;
      tr.classList.toggle("offline", t.status === "offline");
      tr.append(el("td", "name", n));
      tr.append(el("td", "status", t.status || "?"));
      const offer = el("td", "offer");
      if (t.offer) {
        offer.append(el("span", "names", t.offer.names ? t.offer.names.join(" v ") : t.offer.players + " players"));
        offer.append(el("span", "id", " " + t.offer.id));
      }
      tr.append(offer);
      const a = t.answer;
      const ans = el("td", "answer " + (a ? a.answer : ""), a ? D.answerText(a) : "");
      if (a && a.id) ans.append(el("span", "id", " " + a.id));
      tr.append(ans);
      const cell = el("td");
      if (t.offer) {
        const w = el("button", "withdraw", "withdraw");
        w.type = "button";
        w.addEventListener("click", () => withdraw(n));
        cell.append(w);
      }
      tr.append(cell);
      return tr;
    });
    tablesBody.replaceChildren(...rows);
    document.getElementById("notables").hidden = rows.length > 0;
  }

  // ---- messages --------------------------------------------------------------------------------
  const standings = new H.Hall(() => {}, () => {});
  standings.refuse = refuse;
  standings.onStandings = () => {
    const st = standings.standings.get(s.hall);
    standingsBox.replaceChildren(...(st ? [H.standingsTable(st)] : []));
  };

  function text(payload) {
    if (payload.length > H.MAX_MESSAGE) return null;
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(payload);
    } catch (e) {
      return null;
    }
  }

  function message(topic, payload) {
    const parts = topic.split("/");
    if (parts[0] === "cowboy-archive") {
      standings.receive(topic, payload);
      return;
    }
    if (parts.length !== 4 || parts[1] !== s.hall || !H.NAME.test(parts[2])) {
      refuse("a topic the desk does not read: " + JSON.stringify(topic.slice(0, 80)));
      return;
    }
    const body = text(payload);
    if (body === null) {
      refuse("a message too long or not UTF-8 on " + topic);
      return;
    }
    const t = table(parts[2]);
    const kind = parts[0] + "/" + parts[3];
    if (kind === "cowboy/status") {
      if (body !== "online" && body !== "offline") return refuse("a status on " + topic);
      t.status = body;
      drawGames();
    } else if (kind === "cowboy/answer") {
      if (body === "") {
        t.answer = null;
      } else {
        const a = D.readAnswer(body);
        if (!a) return refuse("an answer on " + topic);
        t.answer = a;
      }
    } else if (kind === "cowboy-desk/offer") {
      if (body === "") {
        t.offer = null;
      } else {
        const o = D.readOffer(body);
        if (!o) return refuse("an offer on " + topic);
        t.offer = o;
      }
    } else {
      return refuse("a topic the desk does not read: " + topic);
    }
    drawTables();
  }

  function status(msg, ok) {
    conn.textContent = msg;
    conn.classList.toggle("ok", ok);
  }

  try {
    rosterIn.value = localStorage.getItem(store + "roster") || "";
    pairingsIn.value = localStorage.getItem(store + "pairings") || "";
  } catch (e) { /* nothing kept */ }
  rosterIn.addEventListener("input", readInputs);
  pairingsIn.addEventListener("input", readInputs);
  document.getElementById("robin").addEventListener("click", robin);
  readInputs();
  drawTables();
  const hall = s.hall;
  client = H.open(s, ["cowboy/" + hall + "/+/status", "cowboy/" + hall + "/+/answer",
    "cowboy-desk/" + hall + "/+/offer", "cowboy-archive/" + hall + "/standings"], status, message);
  window.cowboyDeskPage = { tables, sent };
})();
