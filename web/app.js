// The scoreboard page: MicroPython (WebAssembly) runs the firmware on fake pins and
// buses (web/webboard.py); this file draws what the display models decode, turns
// clicks, touches and keys into pin changes, keeps the board's flash in the
// browser's storage and plays the buzzer with Web Audio.
//
// ?clock=manual stops the real-time clock: time then only passes through
// window.cowboy.advance(ms) (the browser test uses it to run in step with
// tools/sim.py).
import { loadMicroPython } from "./micropython.mjs";

const params = new URLSearchParams(location.search);
const MANUAL = params.get("clock") === "manual";
const FLASH = "/flash/";                  // the boards' flash in the in-memory filesystem
const STORE = "cowboy.flash.";            // localStorage key prefix, one per build
const PAGE = "cowboy.page";               // the page's own choices (build, sound)
const MAX_CATCH_UP_MS = 250;              // simulated time one animation frame may run
const HEAP_BYTES = 16 * 1024 * 1024;  // MicroPython heap: a small one makes the collector run all the time

const $ = (id) => document.getElementById(id);
let mp = null;          // the MicroPython instance
let wb = null;          // the webboard module
let board = null;       // webboard.Board of the build on show
let buildName = "tm1637";
let seats = [];         // per display: {canvas, ctx, kind}
let clockStart = 0;     // performance.now() at simulated time 0
let flashSig = "";      // what the stored flash holds (paths, sizes, times)
let audio = null;
let failed = false;
const page = loadPage();

function loadPage() {
  try {
    return JSON.parse(localStorage.getItem(PAGE)) || {};
  } catch (e) {
    return {};
  }
}

function savePage() {
  localStorage.setItem(PAGE, JSON.stringify(page));
}

function say(text, bad) {
  const m = $("message");
  m.textContent = text;
  m.className = bad ? "bad" : "";
}

function fail(where, err) {
  failed = true;
  console.error(where, err);
  say("The firmware stopped: " + where + ": " + err, true);
}

// ---- the board's flash in the browser's storage ------------------------------------
function root() {
  return FLASH + buildName + "/";
}

function listFiles(dir, out) {
  for (const name of mp.FS.readdir(dir)) {
    if (name === "." || name === "..") continue;
    const path = dir + name;
    const st = mp.FS.stat(path);
    if (mp.FS.isDir(st.mode)) listFiles(path + "/", out);
    else out.push([path, st]);
  }
  return out;
}

function toBase64(bytes) {
  let s = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    s += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function fromBase64(text) {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

// After every frame: when a file under the flash changed, store them all.
function syncFlash() {
  const dir = root();
  const files = listFiles(dir, []);
  const sig = files.map(([p, st]) => p + ":" + st.size + ":" + st.mtime.getTime()).join("|");
  if (sig === flashSig) return;
  flashSig = sig;
  const data = {};
  for (const [p] of files) data[p.slice(dir.length)] = toBase64(mp.FS.readFile(p));
  localStorage.setItem(STORE + buildName, JSON.stringify(data));
}

// Power on: the flash holds exactly what the storage kept.
function restoreFlash() {
  const dir = root();
  wipe(dir);
  mp.FS.mkdirTree(dir);
  let data = {};
  try {
    data = JSON.parse(localStorage.getItem(STORE + buildName)) || {};
  } catch (e) {
    data = {};
  }
  for (const name of Object.keys(data)) {
    const path = dir + name;
    mp.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
    mp.FS.writeFile(path, fromBase64(data[name]));
  }
  flashSig = "";
}

function wipe(dir) {
  let names;
  try {
    names = mp.FS.readdir(dir);
  } catch (e) {
    return;
  }
  for (const name of names) {
    if (name === "." || name === "..") continue;
    const path = dir + name;
    if (mp.FS.isDir(mp.FS.stat(path).mode)) {
      wipe(path + "/");
      mp.FS.rmdir(path);
    } else {
      mp.FS.unlink(path);
    }
  }
}

// ---- displays -----------------------------------------------------------------------
const LED_ON = [255, 40, 30];
const OLED_ON = [150, 215, 255];

function makeSeats() {
  const box = $("seats");
  box.textContent = "";
  box.dataset.kind = board.kind();
  seats = [];
  const n = wb.seats(buildName);
  for (let i = 0; i < n; i++) {
    const fig = document.createElement("figure");
    fig.className = "seat";
    const canvas = document.createElement("canvas");
    canvas.dataset.seat = String(i + 1);
    const cap = document.createElement("figcaption");
    cap.textContent = "P" + (i + 1);
    fig.append(canvas, cap);
    box.append(fig);
    seats.push({ canvas, ctx: canvas.getContext("2d"), fig, cap });
  }
}

// Only the displays in play are shown (webboard's in_play(): the simulator's rule).
let shownSeats = -1;

function showSeats() {
  const n = board.in_play();
  if (n === shownSeats) return;
  shownSeats = n;
  seats.forEach((s, i) => { s.fig.hidden = i >= n; });
}

function draw() {
  showSeats();
  const changed = board.changed();
  if (!changed) return;
  for (const s of changed.split(",")) {
    const i = Number(s);
    const pic = board.shown_picture(i);
    const level = board.level(i);
    if (pic[0] === "O") drawOled(seats[i], pic.slice(1), level);
    else drawSeven(seats[i], pic.slice(1), level);
  }
}

function drawOled(seat, px, level) {
  const c = seat.canvas;
  if (c.width !== 128) {
    c.width = 128;
    c.height = 64;
    c.className = "oled";
  }
  const img = seat.ctx.createImageData(128, 64);
  const k = 0.45 + 0.55 * level;
  for (let p = 0; p < 8192; p++) {
    const o = p * 4;
    if (px.charCodeAt(p) === 49) {        // "1"
      img.data[o] = OLED_ON[0] * k;
      img.data[o + 1] = OLED_ON[1] * k;
      img.data[o + 2] = OLED_ON[2] * k;
    } else {
      img.data[o] = 8;
      img.data[o + 1] = 10;
      img.data[o + 2] = 14;
    }
    img.data[o + 3] = 255;
  }
  seat.ctx.putImageData(img, 0, 0);
}

// The model's art(): three text rows, four characters a digit: " a  " / "fgb " / "edc.".
function segmentsOf(art) {
  const rows = art.split("\n");
  const digits = [];
  for (let x = 0; x + 3 < rows[0].length + 1; x += 4) {
    const at = (r, k) => (rows[r][x + k] || " ") !== " ";
    digits.push({
      a: at(0, 1), f: at(1, 0), g: at(1, 1), b: at(1, 2),
      e: at(2, 0), d: at(2, 1), c: at(2, 2), dp: at(2, 3),
    });
  }
  return digits;
}

const DW = 40;   // digit cell width and height in canvas pixels
const DH = 64;

function drawSeven(seat, art, level) {
  const digits = segmentsOf(art);
  const c = seat.canvas;
  const w = digits.length * DW + 12;
  if (c.width !== w) {
    c.width = w;
    c.height = DH + 12;
    c.className = "seven";
  }
  const ctx = seat.ctx;
  ctx.fillStyle = "#120505";
  ctx.fillRect(0, 0, c.width, c.height);
  const k = 0.35 + 0.65 * level;
  const on = `rgb(${LED_ON[0] * k | 0},${LED_ON[1] * k | 0},${LED_ON[2] * k | 0})`;
  const off = "#2a0d0b";
  digits.forEach((d, i) => drawDigit(ctx, 8 + i * DW, 6, d, on, off));
}

function drawDigit(ctx, x, y, d, on, off) {
  const t = 5;                    // segment thickness
  const w = DW - 14;
  const h = (DH - 4) / 2;
  const sk = 3;                   // italic slant
  const seg = (lit, pts) => {
    ctx.fillStyle = lit ? on : off;
    ctx.beginPath();
    pts.forEach(([px, py], j) => {
      const X = x + px + sk * (1 - py / DH) * 2;
      if (j === 0) ctx.moveTo(X, y + py);
      else ctx.lineTo(X, y + py);
    });
    ctx.closePath();
    ctx.fill();
  };
  const hor = (yy) => [[t, yy], [t + 2, yy - t / 2], [w - 2, yy - t / 2], [w, yy],
    [w - 2, yy + t / 2], [t + 2, yy + t / 2]];
  const ver = (xx, y0, y1) => [[xx, y0 + 2], [xx + t / 2, y0 + 2 + t / 2],
    [xx + t / 2, y1 - 2 - t / 2], [xx, y1 - 2], [xx - t / 2, y1 - 2 - t / 2],
    [xx - t / 2, y0 + 2 + t / 2]];
  seg(d.a, hor(t / 2 + 1));
  seg(d.g, hor(h + 1));
  seg(d.d, hor(2 * h + 1 - t / 2));
  seg(d.f, ver(t / 2 + 1, t / 2 + 1, h + 1));
  seg(d.b, ver(w + t / 2 - 1, t / 2 + 1, h + 1));
  seg(d.e, ver(t / 2 + 1, h + 1, 2 * h + 1 - t / 2));
  seg(d.c, ver(w + t / 2 - 1, h + 1, 2 * h + 1 - t / 2));
  ctx.fillStyle = d.dp ? on : off;
  ctx.beginPath();
  ctx.arc(x + w + 8, y + 2 * h - 1, t / 2 + 0.5, 0, 2 * Math.PI);
  ctx.fill();
}

// ---- the buzzer -------------------------------------------------------------------------
let osc = null;

// Made on a key press (browsers start sound only from a user's gesture).
function wakeAudio() {
  if (!$("sound").checked || MANUAL) return;
  if (!audio) {
    try {
      audio = new AudioContext();
      osc = audio.createOscillator();
      const gain = audio.createGain();
      gain.gain.value = 0.06;
      osc.type = "square";
      osc.frequency.value = 0;
      osc.connect(gain).connect(audio.destination);
      osc.start();
    } catch (e) {
      audio = null;
      return;
    }
  }
  if (audio.state === "suspended") audio.resume();
}

function playTones() {
  const s = board.drain_tones();
  if (!s || !audio || !$("sound").checked) return;
  const base = audio.currentTime + 0.03 - board.now / 1000;
  for (const pair of s.split(",")) {
    const [t, hz] = pair.split(":").map(Number);
    osc.frequency.setValueAtTime(hz, Math.max(audio.currentTime, base + t / 1000));
  }
}

// ---- time ---------------------------------------------------------------------------------
function advance(ms) {
  try {
    board.advance(ms);
    draw();
    syncFlash();
    playTones();
  } catch (e) {
    fail("running the firmware", e);
  }
}

function frame() {
  if (failed) return;
  if (!MANUAL && board) {
    let due = Math.floor(performance.now() - clockStart) - board.now;
    if (due > MAX_CATCH_UP_MS) {          // a background tab: let that time go by
      clockStart += due - MAX_CATCH_UP_MS;
      due = MAX_CATCH_UP_MS;
    }
    if (due > 0) advance(due);
    showStatus();
  }
  requestAnimationFrame(frame);
}

let shownState = "";
let shownStatus = "";

// The game in words (webboard's status(): the simulator's words), the labels over
// the displays (P1, or P1 and the player's name: they change with the words, which
// name the players too), and the state.
function showStatus() {
  const words = board.status();
  const text = board.state();
  if (words === shownStatus && text === shownState) return;
  if (words !== shownStatus) {
    board.labels().split("\t").forEach((t, i) => { if (seats[i]) seats[i].cap.textContent = t; });
  }
  shownStatus = words;
  $("status").textContent = words;
  shownState = text;
  $("state").textContent = text;
  fillPlayers(board.next_players());      // the next game's, as the status says
}

function fillPlayers(next) {
  const sel = $("players");
  const n = wb.seats(buildName);
  if (sel.options.length !== n - 1) {
    sel.textContent = "";
    for (let p = 2; p <= n; p++) sel.add(new Option(String(p), String(p)));
  }
  if (!sel.dataset.touched) sel.value = String(next);
}

// ---- power ----------------------------------------------------------------------------------
function powerOn(players) {
  restoreFlash();
  board = wb.Board(buildName, root(), players === undefined ? null : players);
  clockStart = performance.now();
  makeSeats();
  shownSeats = -1;
  buildEncoders();
  draw();
  syncFlash();
  shownState = "";
  shownStatus = "";
  showStatus();
}

function powerCut() {
  releaseAll();
  board = null;               // nothing is closed or saved: the power is just gone
  powerOn();
  say("Power cut: switched on again, the game resumed from the journal.");
}

// ---- the panel ------------------------------------------------------------------------------
const held = new Map();       // pointer id or key code -> panel key name

function press(name, id) {
  if (!board || failed) return;
  say("");                    // a notice lasts until play goes on
  wakeAudio();
  if (board.press(name)) held.set(id, name);
  markDown(name, true);
}

function release(id) {
  const name = held.get(id);
  if (name === undefined) return;
  held.delete(id);
  if (board) board.release(name, 0);
  markDown(name, false);
}

function releaseAll() {
  for (const id of [...held.keys()]) release(id);
}

function markDown(name, down) {
  for (const el of document.querySelectorAll(`[data-key="${CSS.escape(name)}"]`)) {
    el.classList.toggle("down", down);
  }
}

function turn(name, d) {
  if (!board || failed) return;
  say("");
  wakeAudio();
  board.turn(name, d);
}

function bindKey(el) {
  el.addEventListener("pointerdown", (e) => {
    e.preventDefault();
    el.setPointerCapture(e.pointerId);
    press(el.dataset.key, "p" + e.pointerId);
  });
  const up = (e) => release("p" + e.pointerId);
  el.addEventListener("pointerup", up);
  el.addEventListener("pointercancel", up);
  el.addEventListener("lostpointercapture", up);
  el.addEventListener("contextmenu", (e) => e.preventDefault());
}

function buildEncoders() {
  const box = $("encoders");
  const names = board.key_names().split(";")[1].split(",");
  if (box.dataset.names === names.join(",")) return;
  box.dataset.names = names.join(",");
  box.textContent = "";
  for (const name of names) {
    const enc = document.createElement("div");
    enc.className = "encoder";
    enc.dataset.encoder = name;
    const left = document.createElement("button");
    left.className = "turn";
    left.dataset.turn = name + "-";
    left.textContent = "◀";
    left.title = name + " one detent anticlockwise";
    const knob = document.createElement("button");
    knob.className = "key knob";
    knob.dataset.key = name;
    knob.innerHTML = `${name}<small>push · hold: menu</small>`;
    const right = document.createElement("button");
    right.className = "turn";
    right.dataset.turn = name + "+";
    right.textContent = "▶";
    right.title = name + " one detent clockwise";
    for (const b of [left, right]) {
      b.addEventListener("pointerdown", (e) => {
        e.preventDefault();
        turn(name, b === right ? 1 : -1);
      });
    }
    bindKey(knob);
    knob.addEventListener("wheel", (e) => {
      e.preventDefault();
      turn(name, e.deltaY < 0 ? 1 : -1);
    }, { passive: false });
    enc.append(left, knob, right);
    box.append(enc);
  }
}

// The key map of `make sim` (tools/sim.py); shifted keys are long presses.
const KEYS = {
  "1": ["1", false], "3": ["3", false], "5": ["5", false],
  "!": ["1", true], "#": ["3", true], "%": ["5", true],
  "c": ["C2", false], "v": ["C3", false],
  "Enter": ["OK", false], " ": ["OK", false],
  "m": ["MISS", false], "M": ["MISS", true],
  "f": ["FOUL", false], "F": ["FOUL", true],
  "s": ["SCRATCH", false], "S": ["SCRATCH", true],
  "u": ["UNDO", false], "Backspace": ["UNDO", false], "r": ["REDO", false],
  "/": ["ENC", false], "Tab": ["ENC", false], "ArrowDown": ["ENC", false],
  "?": ["ENC", true], "'": ["ENC2", false], '"': ["ENC2", true],
};
const TURNS = {
  ".": ["ENC", 1], ",": ["ENC", -1], "ArrowRight": ["ENC", 1], "ArrowLeft": ["ENC", -1],
  ">": ["ENC2", 1], "<": ["ENC2", -1],
};

function onKeyDown(e) {
  if (e.ctrlKey || e.altKey || e.metaKey || !board) return;
  const tag = (e.target && e.target.tagName) || "";
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  if (e.key === "P") {
    e.preventDefault();
    if (!e.repeat) powerCut();
    return;
  }
  if (e.key in TURNS) {
    e.preventDefault();
    turn(...TURNS[e.key]);
    return;
  }
  if (!(e.key in KEYS)) return;
  e.preventDefault();
  if (e.repeat) return;
  wakeAudio();
  const [name, long] = KEYS[e.key];
  if (long) {
    say("");
    board.tap(name, true);            // held past the long-press time
    markDown(name, true);
    setTimeout(() => markDown(name, false), 1000);
  } else {
    press(name, "k" + e.code);
  }
}

function onKeyUp(e) {
  release("k" + e.code);
}

// ---- set-up, records ---------------------------------------------------------------------------
function download(name, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "application/x-ndjson" }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function bindSetup() {
  const sel = $("build");
  for (const name of wb.builds().split(",")) sel.add(new Option(name, name));
  sel.value = buildName;
  sel.addEventListener("change", () => {
    buildName = sel.value;
    page.build = buildName;
    savePage();
    releaseAll();
    $("players").dataset.touched = "";
    powerOn();
    say(`Build ${buildName}: its own flash, its own game.`);
  });
  $("players").addEventListener("change", () => {
    $("players").dataset.touched = "1";
  });
  $("newgame").addEventListener("click", () => {
    const p = Number($("players").value);
    try {
      board.new_game(p);
      syncFlash();
    } catch (e) {
      fail("new game", e);
      return;
    }
    $("players").dataset.touched = "";
    releaseAll();
    powerOn();
    say(`New game, ${p} players.`);
  });
  $("setnames").addEventListener("click", () => {
    let why;
    try {
      why = board.set_names($("names").value);
      board.advance(100);             // the loop's next flash step keeps them
      syncFlash();
    } catch (e) {
      fail("names", e);
      return;
    }
    if (why) say(`Names not set: ${why}`, true);
    else say("Names set.");
  });
  $("power").addEventListener("click", powerCut);
  $("export").addEventListener("click", () => {
    let text;
    try {
      text = board.export_record();
    } catch (e) {
      say("No journal to export: " + e, true);
      return;
    }
    download(`cowboy-${buildName}-game.jsonl`, text);
    say("Exported the game record (JSON Lines).");
  });
  $("import").addEventListener("change", async (e) => {
    const file = e.target.files[0];
    e.target.value = "";
    if (!file) return;
    const text = await file.text();
    let err, kept;
    try {
      err = board.import_record(text);
      kept = board.set_aside;
    } catch (e) {
      fail("import", e);
      return;
    }
    if (err) {
      restoreFlash();                 // leave the flash as it was stored
      say(`${file.name}: ${err}`, true);
      return;
    }
    syncFlash();
    releaseAll();
    powerOn();
    say(`Imported ${file.name}: the board resumed it from its journal.` +
      (kept ? ` The game it replaced is kept in the archive (${kept}), as New game does.` : ""));
  });
  const sound = $("sound");
  sound.checked = page.sound !== false;
  sound.addEventListener("change", () => {
    page.sound = sound.checked;
    savePage();
    if (!sound.checked && osc) osc.frequency.setValueAtTime(0, audio.currentTime);
  });
  for (const el of document.querySelectorAll("#panel .key")) bindKey(el);
  addEventListener("keydown", onKeyDown);
  addEventListener("keyup", onKeyUp);
  addEventListener("blur", releaseAll);
  // A link to a folded section (the walk-through, the rules in short) unfolds it.
  for (const a of document.querySelectorAll('a[href^="#"]')) {
    a.addEventListener("click", () => {
      const target = $(a.getAttribute("href").slice(1));
      if (target && target.tagName === "DETAILS") target.open = true;
    });
  }
}

// The legend of the codes (web/webboard.py's legend(): docs/DISPLAYS.md's rows).
function fillLegend() {
  const body = $("legend").tBodies[0];
  for (const line of wb.legend().split("\n")) {
    const [code, meaning] = line.split("\t");
    const row = body.insertRow();
    const c = document.createElement("code");
    c.textContent = code;
    row.insertCell().append(c);
    row.insertCell().textContent = meaning;
  }
}

// ---- start-up ---------------------------------------------------------------------------------
async function start() {
  const bundle = fetch("cowboy.json").then((r) => {
    if (!r.ok) throw new Error("cowboy.json: HTTP " + r.status);
    return r.json();
  });
  mp = await loadMicroPython({
    url: "micropython.wasm",
    heapsize: HEAP_BYTES,
    stdout: (line) => console.log(line),
    stderr: (line) => console.warn(line),
  });
  const tLoaded = performance.now();
  const { files, path } = await bundle;
  for (const p of Object.keys(files)) {
    mp.FS.mkdirTree(p.slice(0, p.lastIndexOf("/")));
    mp.FS.writeFile(p, files[p]);
  }
  mp.runPython(`import sys\nsys.path[:0] = ${JSON.stringify(path)}`);
  wb = mp.pyimport("webboard");
  const tImported = performance.now();
  buildName = page.build && wb.builds().split(",").includes(page.build) ? page.build : "tm1637";
  bindSetup();
  powerOn();
  window.cowboy = api();
  requestAnimationFrame(frame);
  const ms = Math.round(performance.now());
  const parts = [tLoaded, tImported - tLoaded, ms - tImported].map(Math.round);
  document.documentElement.dataset.startup = parts.join(",");
  document.documentElement.dataset.ready = String(ms);
  fillLegend();                       // after the ready marker: not part of the start-up
  if (!MANUAL) $("startup").textContent = `Started in ${ms} ms (MicroPython loaded at ${parts[0]} ms, ` +
    `firmware imported in ${parts[1]} ms, first power-on ${parts[2]} ms).`;
}

// What the browser test (and the curious) can ask.
function api() {
  return {
    manual: MANUAL,
    now: () => board.now,
    build: () => buildName,
    advance: (ms) => {
      advance(ms);
      showStatus();
      return board.now;
    },
    texts: () => board.texts(),
    arts: () => board.arts(),
    pictures: () => board.pictures(),
    state: () => board.state(),
    idle: () => board.idle(),
  };
}

start().catch((e) => fail("start-up", e));
