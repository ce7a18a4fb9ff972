// The hall view: every table of the hall as a card in a grid that fills the screen,
// and the finished games along the bottom. Settings: ?broker=ws://HOST:9001/&user=hall-tv
// &password=...&hall=club (the form asks when broker is missing).
"use strict";

(() => {
  const H = CowboyHall;
  const s = H.settings();
  const main = document.getElementById("tables");
  const conn = document.getElementById("conn");
  const games = document.getElementById("games");
  const footer = document.getElementById("finished");
  const refused = document.getElementById("refused");
  const aside = document.getElementById("standings");
  const cards = new Map();
  let cols = 0;
  let rowsN = 0;

  if (!s.broker) {
    document.body.classList.add("asking");
    H.form(main, s, { title: "Cowboy hall: connect", user: "hall-tv" });
    conn.textContent = "not connected";
    return;
  }
  document.getElementById("hallname").textContent = s.hall ? "· " + s.hall : "";
  if (s.hall) document.title = "Cowboy: " + s.hall;

  // Columns and rows for n cards: the layout that gives each card the most room at
  // the shape a card reads best in (a little wider than high).
  function fit() {
    const n = cards.size;
    if (!n) return;
    const w = main.clientWidth;
    const h = main.clientHeight;
    let best = 1;
    let bestSize = 0;
    for (let c = 1; c <= n; c++) {
      const r = Math.ceil(n / c);
      const size = Math.min(w / c / 1.35, h / r);
      if (size > bestSize + 0.5) {
        best = c;
        bestSize = size;
      }
    }
    const r = Math.ceil(n / best);
    if (best !== cols || r !== rowsN) {
      cols = best;
      rowsN = r;
      main.style.gridTemplateColumns = "repeat(" + cols + ", minmax(0, 1fr))";
      main.style.gridTemplateRows = "repeat(" + rowsN + ", minmax(0, 1fr))";
    }
  }

  function draw(t) {
    let card = cards.get(t.key);
    if (!card) {
      if (!cards.size) main.replaceChildren();
      card = H.el("article", "card");
      card.dataset.table = t.key;
      cards.set(t.key, card);
      const order = [...cards.keys()].sort((a, b) => H.compareNames(a, b));
      for (const k of order) main.append(cards.get(k));
      fit();
    }
    const inner = H.el("div", "inner");
    const head = H.el("header", "head");
    const multi = !s.hall && new Set([...cards.keys()].map((k) => k.split("/")[0])).size > 1;
    head.append(H.el("h2", "name", multi ? t.hall + " · " + t.name : t.name));
    const offline = t.status === "offline";
    head.append(H.el("span", "game", t.game && !offline ? "game " + t.game : ""));
    head.append(H.el("span", "status", offline ? "OFFLINE" : ""));
    card.classList.toggle("offline", offline);
    if (t.bad) inner.append(H.el("p", "bad", "sent an " + t.bad));
    inner.prepend(head);
    const st = t.state;
    if (st) {
      head.append(H.el("span", "phase", H.PHASES[st.phase]));
      if (hall.olderFirmware(t)) {
        head.append(H.el("span", "firmware", "firmware " + (st.firmware || "before 1.0.0")));
      }
      inner.style.setProperty("--players", st.players);
      inner.append(H.rows(st));
      const stage = H.el("footer", "stage");
      stage.append(H.el("span", "detail", H.detail(st)));
      stage.append(H.extras(st));
      inner.append(stage);
      card.classList.toggle("over", st.phase === "over");
    } else {
      inner.style.setProperty("--players", 3);
      inner.append(H.el("p", "nogame", "no game yet"));
    }
    card.replaceChildren(inner);
    shrink(card);
  }

  // Type of a card made smaller until every line of it fits its width (the unit of
  // hall.css times --fit): a winner's tag beside a long name, or a long stage, would
  // otherwise push the scores out of the card. A name longer than its column is cut
  // with an ellipsis instead; FLOOR keeps the type readable whatever comes.
  const FLOOR = 0.6;

  function shrink(card) {
    const inner = card.firstElementChild;
    if (!inner) return;
    let f = 1;
    inner.style.setProperty("--fit", f);
    for (let i = 0; i < 3 && f > FLOOR; i++) {
      let need = 1;
      for (const e of inner.querySelectorAll("*")) {
        if (e.clientWidth && !e.classList.contains("who")) {
          need = Math.max(need, e.scrollWidth / e.clientWidth);
        }
      }
      if (need <= 1) return;
      f = Math.max(FLOOR, f / need * 0.99);
      inner.style.setProperty("--fit", f);
    }
  }

  // The finished games that fit the bar along the bottom, newest first, each whole.
  function trim() {
    const items = [...games.children];
    for (const li of items) li.hidden = false;
    for (let i = items.length - 1; i >= 0 && games.scrollWidth > games.clientWidth; i--) {
      items[i].hidden = true;
    }
  }

  function finished() {
    const items = [];
    for (const e of hall.finished.slice(0, 24)) {
      const li = H.el("li", "done");
      li.dataset.table = e.key;
      li.dataset.game = e.game;
      li.append(H.el("span", "name", (s.hall ? "" : e.hall + " · ") + e.table));
      li.append(H.el("span", "game", "game " + e.game));
      const r = e.result;
      if (r) {
        const names = r.names || e.names;      // the state's, else the record header's
        li.append(H.el("span", "winner", r.winner ? H.who({ names }, r.winner) + " wins" : "over"));
        const sc = H.el("span", "scores");
        r.scores.forEach((v, i) => {
          sc.append(H.el(i + 1 === r.winner ? "b" : "span", "", String(v)));
        });
        li.append(sc);
      } else {
        li.append(H.el("span", "winner", e.names ? e.names.join(", ") : e.players + " players"));
        if (e.actions !== null) li.append(H.el("span", "scores", e.actions + " actions"));
      }
      if (e.at) {
        li.append(H.el("time", "at", e.at.toTimeString().slice(0, 5)));
      }
      items.push(li);
    }
    games.replaceChildren(...items);
    footer.hidden = items.length === 0;
    fit();
    trim();
  }

  // The archive's standings of the night (of this hall, or of every hall): a panel
  // beside the tables, shown once the archive has published them.
  function standings() {
    const tables = [...hall.standings.keys()].sort(H.compareNames)
      .filter((h) => !s.hall || h === s.hall)
      .map((h) => {
        const t = H.standingsTable(hall.standings.get(h));
        t.dataset.hall = h;
        if (!s.hall) t.caption.prepend(h + " · ");
        return t;
      });
    aside.replaceChildren(...tables);
    aside.hidden = tables.length === 0;
    cols = 0;
    fit();
  }

  function status(text, ok) {
    conn.textContent = text;
    conn.classList.toggle("ok", ok);
  }

  function clock() {
    document.getElementById("clock").textContent = new Date().toTimeString().slice(0, 5);
  }

  const hall = new H.Hall(draw, finished);
  hall.onRefused = (n) => {
    refused.textContent = n + (n === 1 ? " message" : " messages") + " refused";
  };
  hall.onStandings = standings;
  window.cowboyHall = hall;          // for a look from the browser's console (and tests)
  const resized = new ResizeObserver(() => {
    cols = 0;
    fit();
    for (const card of cards.values()) shrink(card);
    trim();
  });
  resized.observe(main);
  resized.observe(footer);
  clock();
  setInterval(clock, 10000);
  H.connect(s, hall, status, true);
})();
