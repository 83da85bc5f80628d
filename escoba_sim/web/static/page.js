// The page's script: draws the state the server sends (escoba_sim/web/games.py) and posts the person's
// clicks. Every word comes from the server's catalogue (#words); every value is set as text, never as HTML.
"use strict";

const W = JSON.parse(document.getElementById("words").textContent);
let game = null;   // the last state the server sent
let busy = false;  // one request at a time: a second click waits for the answer

function say(key, values) {
  return (W[key] || key).replace(/\{(\w+)\}/g, (m, k) => (values && k in values ? String(values[k]) : m));
}

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

function cardImage(code, extra) {
  return el("img", {src: `/cards/${code}.svg`, alt: code, title: code, class: "card " + (extra || ""),
                    "data-card": code});
}

async function api(method, path, body) {
  const options = {method, headers: {}};
  if (method === "POST") {
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body || {});
  }
  const response = await fetch(path, options);
  const data = await response.json().catch(() => ({error: response.statusText}));
  if (!response.ok) {
    const failure = new Error(data.error || response.statusText);
    failure.status = response.status;
    failure.retryAfter = Number(response.headers.get("Retry-After")) || 0;
    throw failure;
  }
  return data;
}

function showError(message) {
  const box = document.getElementById("error");
  box.textContent = message ? say("error", {message}) : "";
  box.hidden = !message;
}

async function run(work) {
  if (busy) return;
  busy = true;
  document.body.classList.add("busy");
  showError("");
  try {
    await work();
  } catch (e) {
    showError(e.message);
  } finally {
    busy = false;
    document.body.classList.remove("busy");
  }
}

function seatName(seat) {
  if (seat === 0) return say("you");
  const s = game.seats[seat];
  return `${say("seat", {seat})} (${s.strategy})`;
}

function sideName(side) {
  const seats = game.sides[side].seats;
  if (seats.length === 1) return seatName(seats[0]);
  if (seats[0] === 0) return say("your_team", {seat: seats[1]});
  return say("team", {a: seats[0], b: seats[1]});
}

function eventText(e) {
  if (e.kind === "deal") return say("new_deal", {stock: e.stock});
  if (e.kind === "lucky") return say("lucky");
  const who = seatName(e.seat);
  const take = e.take.join(" ");
  if (e.seat === 0 && e.kind === "capture") return say("you_play_take", {card: e.card, take}) + (e.escoba ? "  " + say("escoba") : "");
  if (e.seat === 0 && e.kind === "lay") return say("you_lay", {card: e.card});
  if (e.seat === 0 && e.kind === "blow") return say("you_blow", {card: e.card, take: [e.card, ...e.take].join(" ")});
  if (e.kind === "capture") return say("plays_takes", {who, card: e.card, take}) + (e.escoba ? "  " + say("escoba") : "");
  if (e.kind === "lay") return say("lays", {who, card: e.card});
  if (e.kind === "blow") return say("blows", {who, card: e.card, take: [e.card, ...e.take].join(" ")});
  return "";
}

function draw(state) {
  game = state;
  // the game's id in the fragment (never sent to the server): a language switch or a reload finds it again
  history.replaceState(null, "", "#game=" + encodeURIComponent(state.id));
  document.getElementById("game").hidden = false;
  document.getElementById("hint-box").hidden = true;
  document.getElementById("choices").replaceChildren();

  const others = game.seats.filter(s => s.seat !== 0).map(s =>
    el("div", {class: "seat" + (game.to_play === s.seat ? " to-play" : "") + (s.side === game.seats[0].side ? " partner" : "")},
       el("span", {class: "name", text: seatName(s.seat) + (s.side === game.seats[0].side ? " · " + say("partner") : "")
                                          + (game.dealer === s.seat ? " · " + say("dealer") : "")}),
       el("span", {class: "backs"}, ...Array.from({length: s.cards}, () => cardImage("back", "small"))),
       el("span", {class: "count", text: say("in_hand", {n: s.cards})})));
  document.getElementById("others").replaceChildren(...others);

  document.getElementById("table").replaceChildren(...game.table.map(c => cardImage(c)));
  document.getElementById("stock").textContent = [say("hand_number", {n: game.hand_number}),
    say("stock", {n: game.stock}), game.dealer === 0 ? say("dealer") + ": " + say("you") : ""].filter(Boolean).join(" · ");

  const playable = new Set(game.decision === "move" ? game.options.map(o => o.card) : []);
  const hand = game.hand.map(c => {
    const img = cardImage(c, playable.has(c) ? "playable" : "");
    if (playable.has(c)) {
      const button = el("button", {type: "button", class: "card-button", "aria-label": c, onclick: () => chooseCard(c)}, img);
      return button;
    }
    return img;
  });
  document.getElementById("hand").replaceChildren(...hand);

  const prompt = document.getElementById("prompt");
  if (game.decision === "move") prompt.textContent = say("your_turn");
  else if (game.decision === "blow") { prompt.textContent = ""; offerBlow(); }
  else prompt.textContent = say(game.game_over ? "game_over" : "hand_over") + " " + leftoversText();

  document.getElementById("undo").disabled = !game.can_undo;
  document.getElementById("hint").disabled = game.decision === "over";
  document.getElementById("next").hidden = !(game.hand_over && !game.game_over);
  // a record whose save failed is kept by the server and tried again: until then this hand has no file
  const unsaved = document.getElementById("unsaved");
  unsaved.hidden = !game.unsaved;
  unsaved.textContent = game.unsaved ? say("unsaved", {n: game.unsaved}) : "";
  document.getElementById("analyse").hidden = !game.hand_over || game.unsaved > 0;
  const link = document.getElementById("download");
  const last = game.hand_over && !game.unsaved ? game.records[game.records.length - 1] : null;
  link.hidden = !last;
  if (last) { link.href = `/records/${encodeURIComponent(last)}`; link.setAttribute("download", last); }
  document.getElementById("share").hidden = !last;
  if (!last) document.getElementById("share-box").hidden = true;

  drawPiles();
  document.getElementById("log").replaceChildren(...game.events.map(e => el("li", {class: e.kind, text: eventText(e)})));
  if (game.hand_over) loadRecords();
  drawSheet();
  drawLedgers();
}

function leftoversText() {
  if (!game.leftovers) return "";
  const {cards, seat} = game.leftovers;
  if (seat === 0) return say("leftovers_you", {cards});
  return seat >= 0 ? say("leftovers", {cards, who: seatName(seat)}) : say("leftovers_nobody", {cards});
}

function drawPiles() {
  const head = el("tr", {}, el("th", {text: ""}), ...game.sides.map(s => el("th", {text: sideName(s.side)})));
  const rows = [head];
  const row = (label, values) => rows.push(el("tr", {}, el("th", {text: label}), ...values.map(v => el("td", {text: String(v)}))));
  if (game.score) {
    for (const key of ["escobas", "siete_oros", "sevens", "oros", "cards", "bonus", "total"]) {
      const label = key === "sevens" && game.sevens_rule === "all" ? "sevens_all" : key;
      row(say(label), game.score.map(s => s[key]));
    }
  } else {
    row(say("cards_taken"), game.sides.map(s => s.cards));
    row(say("oros_taken"), game.sides.map(s => s.oros));
    row(say("sevens_taken"), game.sides.map(s => s.sevens));
    row(say("siete_oros"), game.sides.map(s => (s.siete_oros ? "✓" : "–")));
    row(say("escobas"), game.sides.map(s => s.escobas));
  }
  row(say("score") + (game.target ? " (" + say("to", {n: game.target}) + ")" : ""), game.sides.map(s => s.score));
  document.getElementById("piles").replaceChildren(...rows);
}

function chooseCard(card) {
  const moves = game.options.filter(o => o.card === card);
  if (moves.length === 1) return play(moves[0]);
  const box = document.getElementById("choices");
  document.getElementById("prompt").textContent = say("choose_capture", {card});
  box.replaceChildren(...moves.map(m => el("button", {type: "button", class: "choice", onclick: () => play(m)},
    cardImage(m.card, "small"), el("span", {text: m.take.length ? "+" : say("lay")}),
    ...m.take.map(c => cardImage(c, "small")), ...(m.escoba ? [el("strong", {text: say("escoba")})] : []))));
}

function play(move) {
  run(async () => draw(await api("POST", `/api/games/${game.id}/move`, {card: move.card, take: move.take})));
}

function offerBlow() {
  const laid = game.options[1].card;
  const last = [...game.events].reverse().find(e => e.kind === "lay");
  document.getElementById("prompt").textContent = say("blow_offer", {who: last ? seatName(last.seat) : "", card: laid});
  const box = document.getElementById("choices");
  box.replaceChildren(...game.options.map((o, i) => el("button", {type: "button", class: "choice",
      onclick: () => run(async () => draw(await api("POST", `/api/games/${game.id}/blow`, {option: i})))},
    el("span", {text: o.card === null ? say("no_blow") : say("blow_option", {card: o.card, take: o.take.join(" ")})}))));
}

function hint() {
  run(async () => {
    const h = await api("POST", `/api/games/${game.id}/hint`);
    const box = document.getElementById("hint-box");
    if (h.method === "forced") {
      box.replaceChildren(el("p", {text: say("hint_forced")}));
    } else {
      const how = h.method === "exact" ? say("hint_exact") : say("hint_search", {samples: h.samples});
      box.replaceChildren(el("p", {text: say("hint_title", {how, seconds: h.seconds.toFixed(2)})}),
        el("ol", {}, ...h.options.map(o => el("li", {},
          el("span", {class: "move", text: o.blow ? say("blow_option", {card: o.card, take: o.take.join(" ")})
                                               : o.card === null ? say("no_blow") : o.label}),
          el("span", {class: "value", text: o.text}),
          el("span", {class: "hint-cards"}, ...(o.card === null ? [] : [o.card, ...o.take].map(c => cardImage(c, "tiny"))))))),
        el("p", {class: "unit", text: say("hint_unit")}));
    }
    // what the other seats probably hold (hands.reading), in the page's language
    const lines = h.reading_text || [];
    if (lines.length) {
      box.append(el("div", {class: "reading"}, ...lines.map(line => el("p", {
        class: line.startsWith(" ") ? "read-value" : "read-head", text: line.trim()}))));
    }
    box.hidden = false;
  });
}

function drawPosition(d) {
  const p = d.position;
  const box = document.getElementById("analysis-position");
  box.replaceChildren(
    el("p", {class: "caption", text: say("position", {n: d.number, seat: d.seat}) + " · " + say("stock", {n: p.stock})}),
    el("div", {class: "felt"}, el("div", {class: "cards table-cards"}, ...p.table.map(c => cardImage(c, "small")),
      ...(p.pending ? [cardImage(p.pending, "small pending")] : []))),
    el("div", {class: "cards hand"}, ...p.hand.map(c => cardImage(c, "small" + (d.played.split(" ")[0] === c ? " played" : "")))));
}

function showAnalysis(a) {
  const section = document.getElementById("analysis");
  const body = section.querySelector("tbody");
  body.replaceChildren(...a.decisions.map((d, i) => {
    const cells = d.forced
      ? [d.number, d.seat, d.played, say("forced"), "", "", "", ""]
      : [d.number, d.seat, d.played, d.value_played, d.best, d.value_best, d.loss.toFixed(2), d.mark ? say(d.mark) : ""];
    const tr = el("tr", {class: (d.mark || "") + (i === 0 ? " selected" : ""), tabindex: "0"},
                  ...cells.map(c => el("td", {text: String(c)})));
    tr.addEventListener("click", () => {
      body.querySelectorAll("tr.selected").forEach(r => r.classList.remove("selected"));
      tr.classList.add("selected");
      drawPosition(d);
    });
    return tr;
  }));
  if (a.decisions.length) drawPosition(a.decisions[0]);
  document.getElementById("analysis-totals").textContent = a.players.map(t => say("total_loss", {
    who: say("seat", {seat: t.seat}), choices: t.choices, loss: t.total_loss.toFixed(2), blunders: t.marks.blunder,
    mistakes: t.marks.mistake, inaccuracies: t.marks.inaccuracy})).join(" · ");
  section.hidden = false;
  section.scrollIntoView({behavior: "smooth"});
}

function analyseRecord(name, seat) {
  const box = document.getElementById("analysis-totals");
  document.getElementById("analysis").hidden = false;
  box.textContent = say("analysing");
  run(async () => showAnalysis(await api("GET", `/api/records/${encodeURIComponent(name)}/analysis?seat=${seat}`)));
}

async function loadRecords() {
  try {
    const {records} = await api("GET", "/api/records");
    const list = document.getElementById("records");
    list.replaceChildren(...(records.length ? records.slice(0, 20).map(name => el("li", {},
      el("a", {href: `/records/${encodeURIComponent(name)}`, download: name, text: name}), " ",
      el("button", {type: "button", class: "link", text: "▶", "aria-label": name,
                    onclick: () => analyseRecord(name, "all")})))
      : [el("li", {text: say("no_records")})]));
  } catch (e) {
    showError(e.message);
  }
}

document.getElementById("new-game").addEventListener("submit", event => {
  event.preventDefault();
  const mode = document.getElementById("mode").value;
  document.getElementById("analysis").hidden = true;
  run(async () => draw(await api("POST", "/api/games", {rules: document.getElementById("rules").value,
    vs: document.getElementById("vs").value, teams: mode === "teams"})));
});
document.getElementById("hint").addEventListener("click", hint);
document.getElementById("undo").addEventListener("click",
  () => run(async () => draw(await api("POST", `/api/games/${game.id}/undo`))));
document.getElementById("next").addEventListener("click", () => {
  document.getElementById("analysis").hidden = true;
  run(async () => draw(await api("POST", `/api/games/${game.id}/next`)));
});
document.getElementById("analyse").addEventListener("click",
  () => analyseRecord(game.records[game.records.length - 1], 0));
document.getElementById("upload").addEventListener("change", event => {
  const file = event.target.files[0];
  if (!file) return;
  run(async () => {
    const text = await file.text();
    if (!text.trimStart().startsWith("{")) return openHand(text.trim());  // a notation: the server reads it
    let record;
    try { record = JSON.parse(text); } catch (e) { throw new Error(file.name + ": " + e.message); }
    showAnalysis(await api("POST", "/api/analyze?seat=all", record));
  });
});

// ---- luck or play: the ledger of each finished hand (GET /api/records/NAME/ledger, hands/luck.py) as a bridge
// chart, the game's ledger at its end, and the score sheet. A ledger takes seconds of the server's CPU: it is
// asked for apart from run() (the person may deal the next hand meanwhile), once per record.
const ledgers = new Map();  // record name -> promise of its ledger
let shownLedger = null;     // the record whose chart is drawn (or being computed)
let shownGame = null;       // the game whose game ledger is drawn

const numbers = new Intl.NumberFormat(document.documentElement.lang || "en",
  {minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: "exceptZero"});
const plain = new Intl.NumberFormat(document.documentElement.lang || "en",
  {minimumFractionDigits: 2, maximumFractionDigits: 2});
const whole = new Intl.NumberFormat(document.documentElement.lang || "en", {signDisplay: "exceptZero"});
const signed = v => numbers.format(v);

let ledgerQueue = Promise.resolve();  // the page's ledgers are asked one after another: the server computes few at once
const LEDGER_TRIES = 6;

async function askLedger(name) {
  for (let tries = 1; ; tries++) {
    try {
      return await api("GET", `/api/records/${encodeURIComponent(name)}/ledger`);
    } catch (e) {  // the server busy with other pages' ledgers: asked again when it says
      if (e.status !== 503 || !e.retryAfter || tries >= LEDGER_TRIES) throw e;
      await new Promise(done => setTimeout(done, 1000 * Math.min(e.retryAfter, 10)));
    }
  }
}

function ledgerOf(name) {
  if (!ledgers.has(name)) {
    const asked = ledgerQueue.then(() => askLedger(name));
    ledgerQueue = asked.catch(() => null);
    asked.catch(() => ledgers.delete(name));  // a failure is asked again next time
    ledgers.set(name, asked);
  }
  return ledgers.get(name);
}

function capital(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function partsText(luck, decisions, others) {
  [luck, decisions, others] = [luck, decisions, others].map(v => Math.round(v * 100) / 100 + 0);  // as shown
  return {
    cards: say(luck >= 0 ? "ledger_cards_gave" : "ledger_cards_cost", {value: luck >= 0 ? signed(luck) : plain.format(-luck)}),
    decisions: decisions < 0 ? say("ledger_decisions_lost", {value: plain.format(-decisions)}) : say("ledger_decisions_none"),
    others: say(others >= 0 ? "ledger_others_gave" : "ledger_others_cost", {value: others >= 0 ? signed(others) : plain.format(-others)}),
  };
}

// one row of a chart: its label, a track on which a bar runs from `from` to `to` (the scale lo..hi), its number
function chartRow(label, from, to, lo, hi, kind, shown, title) {
  const pct = v => (100 * (v - lo) / (hi - lo || 1)).toFixed(3) + "%";
  const bar = el("span", {class: "bar " + kind});
  bar.style.left = pct(Math.min(from, to));
  bar.style.width = `max(2px, ${(100 * Math.abs(to - from) / (hi - lo || 1)).toFixed(3)}%)`;
  const zero = el("span", {class: "zero"});
  zero.style.left = pct(0);
  return el("div", {class: "row " + kind, title: title || ""}, el("span", {class: "label", text: label}),
            el("span", {class: "track"}, zero, bar), el("span", {class: "number", text: shown}));
}

const ARRIVAL_WORD = {deal: "ledger_deal", round: "ledger_round", draw: "ledger_draw"};

function drawWaterfall(led) {
  const steps = [];  // [label, change, kind, title]
  for (const e of led.entries) {
    if (!["deal", "round", "draw"].includes(e.kind)) continue;
    steps.push([say(ARRIVAL_WORD[e.kind]) + (e.cards.length ? " " + e.cards.join(" ") : ""), e.value, "luck",
                "± " + plain.format(e.spread)]);
  }
  const noise = led.residual.value + led.solver.value;
  steps.push([say("ledger_decisions"), led.decisions.value, "decisions", "± " + plain.format(led.decisions.spread)]);
  steps.push([say("ledger_others"), led.others.value, "others", "± " + plain.format(led.others.spread)]);
  if (Math.abs(noise) >= 0.005) steps.push([say("ledger_noise"), noise, "noise", ""]);
  let level = led.expected.value;
  const points = [0, level, led.result];
  const rows = [];
  for (const [, change] of steps) { level += change; points.push(level); }
  const lo = Math.min(...points), hi = Math.max(...points);
  rows.push(chartRow(say("ledger_expected"), 0, led.expected.value, lo, hi, "total", signed(led.expected.value),
                     "± " + plain.format(led.expected.spread)));
  level = led.expected.value;
  for (const [label, change, kind, title] of steps) {
    rows.push(chartRow(label, level, level + change, lo, hi, kind + (change >= 0 ? " gain" : " loss"), signed(change), title));
    level += change;
  }
  rows.push(chartRow(say("ledger_result"), 0, led.result, lo, hi, "total result", whole.format(led.result)));
  document.getElementById("ledger-chart").replaceChildren(...rows);
  const p = partsText(led.luck.value, led.decisions.value, led.others.value);
  const lines = [capital(say("ledger_reading", {...p, expected: signed(led.expected.value), result: whole.format(led.result)}))];
  if (Math.abs(noise) >= 0.005) lines.push(say("ledger_reading_noise", {noise: signed(noise)}));
  if (!led.adds_up) lines.push(say("ledger_disagree"));
  lines.push(say("ledger_samples", {samples: led.samples}));
  document.getElementById("ledger-reading").textContent = lines.join(" ");
}

async function showHandLedger(name) {
  const section = document.getElementById("ledger"), status = document.getElementById("ledger-status");
  section.hidden = false;
  section.classList.add("computing");
  status.textContent = say("ledger_computing");
  document.getElementById("ledger-chart").replaceChildren();
  document.getElementById("ledger-reading").textContent = "";
  try {
    const led = await ledgerOf(name);
    if (shownLedger !== name) return;  // the next hand was dealt meanwhile
    status.textContent = "";
    drawWaterfall(led);
  } catch (e) {
    if (shownLedger === name) status.textContent = say("ledger_failed", {message: e.message});
  } finally {
    if (shownLedger === name) section.classList.remove("computing");
  }
}

function drawGameLedger(rows, leds) {
  const parts = [["luck", "game_ledger_luck"], ["decisions", "game_ledger_decisions"], ["others", "game_ledger_others"]];
  const of = led => ({expected: led.expected.value, luck: led.luck.value, decisions: led.decisions.value,
                      others: led.others.value, noise: led.residual.value + led.solver.value, result: led.result});
  const hands = leds.map(of);
  const total = {};
  for (const k of ["expected", "luck", "decisions", "others", "noise", "result"]) total[k] = hands.reduce((a, h) => a + h[k], 0);
  // the game's group adds up: expected + luck + decisions + others + noise = the hands' results
  const totalParts = [["expected", "ledger_expected"], ...parts, ...(Math.abs(total.noise) >= 0.005 ? [["noise", "ledger_noise"]] : [])];
  const values = [0, ...hands.flatMap(h => parts.map(([k]) => h[k])), ...totalParts.map(([k]) => total[k])];
  const lo = Math.min(...values), hi = Math.max(...values);
  const group = (label, v, shown, cls) => el("div", {class: "group " + cls},
    el("span", {class: "group-label", text: label}),
    ...shown.map(([k, word]) => chartRow(say(word), 0, v[k], lo, hi, k + (v[k] >= 0 ? " gain" : " loss"), signed(v[k]))));
  const groups = hands.map((h, i) => group([say("game_ledger_hand", {n: rows[i].hand}),
    say("ledger_expected") + " " + signed(h.expected), say("ledger_result") + " " + whole.format(h.result)].join(" · "),
    h, parts, "hand"));
  groups.push(group(say("game_ledger_total") + " · " + say("ledger_result") + " " + whole.format(total.result), total,
                    totalParts, "game-total"));
  document.getElementById("game-ledger-chart").replaceChildren(...groups);
  document.getElementById("game-ledger-legend").replaceChildren(...parts.map(([k, word]) =>
    el("span", {class: "key " + k}, el("span", {class: "swatch"}), el("span", {text: say(word)}))));
  const me = game.seats[0].side, mine = game.sides[me].score;
  const theirs = Math.max(...game.sides.filter(s => s.side !== me).map(s => s.score));
  const p = partsText(total.luck, total.decisions, total.others);
  const lines = [say("game_ledger_reading", p)];
  if (game.sides.length === 2) lines.push(say("game_ledger_margin", {margin: whole.format(total.result), mine, theirs}));
  document.getElementById("game-ledger-reading").textContent = lines.join(" ");
}

async function showGameLedger(id, rows) {
  const section = document.getElementById("game-ledger"), status = document.getElementById("game-ledger-status");
  section.hidden = false;
  document.getElementById("game-ledger-chart").replaceChildren();
  document.getElementById("game-ledger-legend").replaceChildren();
  document.getElementById("game-ledger-reading").textContent = "";
  const leds = [];
  try {
    for (const [i, row] of rows.entries()) {  // one at a time: the server gives each client's work a pool
      status.textContent = say("game_ledger_computing", {n: i + 1, count: rows.length});
      leds.push(await ledgerOf(row.record));
      if (shownGame !== id) return;
    }
    status.textContent = "";
    drawGameLedger(rows, leds);
  } catch (e) {
    if (shownGame === id) { status.textContent = say("ledger_failed", {message: e.message}); shownGame = null; }
  }
}

function drawLedgers() {
  const last = game.hand_over && !game.unsaved ? game.records[game.records.length - 1] : null;
  if (!last) {
    document.getElementById("ledger").hidden = true;
    shownLedger = null;
  } else if (last !== shownLedger) {
    shownLedger = last;
    showHandLedger(last);
  }
  const rows = game.sheet.filter(r => r.record);
  if (!(game.game_over && !game.unsaved && rows.length === game.sheet.length)) {
    document.getElementById("game-ledger").hidden = true;
    shownGame = null;
  } else if (shownGame !== game.id) {
    shownGame = game.id;
    showGameLedger(game.id, rows);
  }
}

// a side as the sheet names it: its seats without their strategies (the piles' table gives them), to fit a phone
function shortSideName(side) {
  const seats = game.sides[side].seats;
  if (seats.length === 1) return seats[0] === 0 ? say("you") : say("seat", {seat: seats[0]});
  if (seats[0] === 0) return say("your_team", {seat: seats[1]});
  return say("team", {a: seats[0], b: seats[1]});
}

function drawSheet() {
  const box = document.getElementById("sheet-box");
  box.hidden = !game.sheet.length;
  if (!game.sheet.length) return;
  const keys = ["cards", "oros", "sevens", "siete_oros", "escobas", "points", "running"];
  const heads = [say("sheet_side"), say("sheet_cards"), say("sheet_oros"), say("sheet_sevens"),
    say("sheet_siete_oros"), say("sheet_escobas"), say("sheet_points"),
    game.target ? say("sheet_to", {n: game.target}) : say("sheet_game")];
  const rows = [el("thead", {}, el("tr", {}, ...heads.map(h => el("th", {scope: "col", text: h}))))];
  const body = el("tbody");
  for (const row of game.sheet) {
    // a hand's rows under a line naming it (a column of its own would not fit a phone)
    body.append(el("tr", {class: "hand-row"}, el("th", {scope: "rowgroup", colspan: String(heads.length),
                                                        text: say("game_ledger_hand", {n: row.hand})})));
    for (const s of row.sides) {
      const cells = keys.map(k => {
        let text = String(s[k]);
        if (k === "siete_oros") text = s[k] ? "✓" : "–";
        if (k === "escobas" && s.lucky_escobas) text = `${s.escobas} (${s.lucky_escobas})`;
        return el("td", {class: "col-" + k, text});
      });
      body.append(el("tr", {class: "side-row" + (s.side === game.seats[0].side ? " mine" : "")},
        el("td", {class: "who", text: shortSideName(s.side)}), ...cells));
    }
  }
  rows.push(body);
  document.getElementById("sheet").replaceChildren(...rows);
  document.getElementById("sheet-note").textContent = say("sheet_note");
}

// ---- a hand shared as a link: http://HOST/#hand=NOTATION (docs/records.md). The browser never sends the
// fragment: the page posts the notation, the server checks it and answers the hand and then its analysis.
const HAND = "#hand=";

function share() {
  run(async () => {
    const name = game.records[game.records.length - 1];
    const {link} = await api("GET", `/api/records/${encodeURIComponent(name)}/notation`);
    const url = location.origin + location.pathname + link;
    const box = document.getElementById("share-box"), field = document.getElementById("share-link");
    field.value = url;
    box.hidden = false;
    let copied = false;
    try {
      if (navigator.clipboard && window.isSecureContext) { await navigator.clipboard.writeText(url); copied = true; }
    } catch (e) { copied = false; }  // no permission (an embedded or headless browser): the field is there to copy
    document.getElementById("share-said").textContent = say(copied ? "share_copied" : "share_copy");
    field.focus();
    field.select();
  });
}

function sharedSeat(h, seat) {
  const strategy = h.seats[seat].strategy;
  if (!strategy) return say("seat", {seat});
  return say("shared_seat", {seat, strategy: strategy === "person" ? say("person") : strategy});
}

function sharedEventText(h, e) {
  if (e.kind === "deal") return say("new_deal", {stock: e.stock});
  if (e.kind === "lucky") return say("lucky");
  const who = sharedSeat(h, e.seat), take = e.take.join(" ");
  if (e.kind === "capture") return say("plays_takes", {who, card: e.card, take}) + (e.escoba ? "  " + say("escoba") : "");
  if (e.kind === "lay") return say("lays", {who, card: e.card});
  return say("blows", {who, card: e.card, take: [e.card, ...e.take].join(" ")});
}

function drawShared(h) {
  const about = [say("shared_about", {rules: h.rules, dealer: h.dealer})];
  const p = h.provenance;
  if ("seed" in p) about.push(say("shared_origin", {seed: p.seed, game: p.game ?? 0, hand: p.hand ?? 0}));
  if (h.unfinished) about.push(say("shared_unfinished", {why: h.unfinished}));
  document.getElementById("shared-about").textContent = about.join(" · ");
  document.getElementById("shared-seats").textContent = h.seats.map(s => sharedSeat(h, s.seat)).join(" · ");
  document.getElementById("shared-deck").textContent = h.deck.join(" ");
  document.getElementById("shared-table").replaceChildren(...h.table.map(c => cardImage(c, "small")));
  let end = say("shared_not_over");
  if (h.over && h.leftovers) {
    const {cards, seat} = h.leftovers;
    end = say("hand_over") + " " + (seat >= 0 ? say("leftovers", {cards, who: sharedSeat(h, seat)})
                                                : say("leftovers_nobody", {cards}));
  }
  document.getElementById("shared-end").textContent = end;
  const problems = document.getElementById("shared-problems");
  problems.textContent = h.problems.join(" · ");
  problems.hidden = !h.problems.length;
  document.getElementById("shared-log").replaceChildren(...h.events.map(e => el("li", {class: e.kind, text: sharedEventText(h, e)})));
  const sideName = side => h.sides[side].map(seat => sharedSeat(h, seat)).join(" + ");
  const rows = [el("tr", {}, el("th", {text: ""}), ...h.sides.map((_, side) => el("th", {text: sideName(side)})))];
  if (h.score) {
    for (const key of ["escobas", "siete_oros", "sevens", "oros", "cards", "bonus", "total"]) {
      const label = key === "sevens" && h.sevens_rule === "all" ? "sevens_all" : key;
      rows.push(el("tr", {}, el("th", {text: say(label)}), ...h.score.map(s => el("td", {text: String(s[key])}))));
    }
  }
  document.getElementById("shared-score").replaceChildren(...rows);
  const section = document.getElementById("shared");
  section.hidden = false;
  section.scrollIntoView({behavior: "smooth"});
}

async function openHand(notation) {
  const at = notation.indexOf(HAND);  // a whole link pasted: the notation is its fragment
  if (at >= 0) notation = notation.slice(at + HAND.length);
  const h = await api("POST", "/api/hand", {notation});
  drawShared(h);
  document.getElementById("analysis").hidden = false;
  document.getElementById("analysis-totals").textContent = say("analysing");
  document.getElementById("analysis").querySelector("tbody").replaceChildren();
  showAnalysis(await api("POST", "/api/analyze?seat=all", h.record));
}

document.getElementById("share").addEventListener("click", share);
document.getElementById("open-hand").addEventListener("submit", event => {
  event.preventDefault();
  const text = document.getElementById("notation-text").value.trim();
  if (text) run(() => openHand(text));
});
window.addEventListener("hashchange", () => {
  if (location.hash.startsWith(HAND)) run(() => openHand(location.hash.slice(HAND.length)));
});
// the language links carry the game over (the fragment); a page opened on one draws that game again
for (const link of document.querySelectorAll("nav.languages a")) {
  link.addEventListener("click", () => { link.href = link.getAttribute("href").split("#")[0] + location.hash; });
}
const kept = /^#game=([A-Za-z0-9_-]+)$/.exec(location.hash);
if (location.hash.startsWith(HAND)) {
  run(() => openHand(location.hash.slice(HAND.length)));
} else if (kept) {
  run(async () => {
    try {
      draw(await api("GET", `/api/games/${kept[1]}`));
    } catch (e) {
      history.replaceState(null, "", location.pathname + location.search);
      throw e;
    }
  });
}
loadRecords();
