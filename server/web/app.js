// The neardup page: talks to the JSON API of the server that served it.
"use strict";

const $ = (id) => document.getElementById(id);

// How long the page waits, in milliseconds: for an answer to a request;
// between asks whether the server is ready, while it is not and while it
// is; and before asking for the stats again at load, when the server
// could not answer.
const waits = { request: 30000, readyPoll: 5000, readyEvery: 10000, statsRetry: 1000 };

// api posts (or gets) JSON and returns the decoded body, or throws an Error
// whose message is for the page's user. The Error carries the HTTP status
// (0 without an answer), the server's error code, and retry: whether the
// same request may succeed in a moment (no answer, a busy or starting
// server).
async function api(method, path, body) {
  const opts = { method, headers: {}, signal: AbortSignal.timeout(waits.request) };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let resp, data = null;
  try {
    resp = await fetch(path, opts);
    data = await resp.json();
  } catch (e) {
    if (!resp || e.name === "TimeoutError") throw noAnswer(e);
    if (resp.ok) throw requestError(resp.status, "", "The server gave an answer the page cannot read.");
  }
  if (!resp.ok) {
    const err = data && data.error ? data.error : { code: "", message: "" };
    throw requestError(resp.status, err.code || "", errorMessage(err.code || "", err.message || ""));
  }
  return data;
}

// noAnswer is the error of a request the server did not answer.
function noAnswer(e) {
  const err = new Error(e.name === "TimeoutError"
    ? "The server did not answer within " + Math.round(waits.request / 1000) + " s."
    : "The server cannot be reached.");
  err.status = 0;
  err.retry = true;
  return err;
}

// requestError is the error of a request the server answered with status.
function requestError(status, code, message) {
  const err = new Error(message);
  err.status = status;
  err.code = code;
  err.retry = status === 429 || status === 502 || status === 504 || (status === 503 && code !== "store_failed");
  return err;
}

// errorMessage words an error answer for the page's user. Where the API's
// message speaks of the request, which the user does not see, the code
// gets the page's own words; other messages are the API's.
function errorMessage(code, message) {
  switch (code) {
    case "body_too_large": {
      // The limit is the message's last number, in bytes.
      const n = message.match(/(\d+)\D*$/);
      return "The text is too long for this server" + (n ? " (at most " + formatBytes(Number(n[1])).replace(/\.0 /, " ") + ")" : "") + ".";
    }
    case "overloaded":
      return "The server is busy; try again in a moment.";
    case "unavailable":
      return /shutting down/.test(message) ? "The server is shutting down." : "The server is starting; try again in a moment.";
    case "bad_json":
    case "bad_gzip":
    case "bad_encoding":
    case "unknown_field":
    case "unsupported_encoding":
    case "method_not_allowed":
    case "no_route":
      return "The server did not understand the page's request; reloading the page may help.";
  }
  if (!message) return "The server answered with an error.";
  message = message.charAt(0).toUpperCase() + message.slice(1);
  return /[.!?]$/.test(message) ? message : message + ".";
}

// showError shows err in el, or hides el when err is not given. The
// server's code and the HTTP status follow the message, in small print.
function showError(el, err) {
  el.textContent = "";
  el.hidden = !err;
  el.dataset.retry = err && err.retry ? "true" : "";
  if (!err) return;
  el.textContent = err.message || String(err);
  if (err.status) {
    const code = document.createElement("small");
    code.className = "code";
    code.textContent = " (" + (err.code ? err.code + ", " : "") + "HTTP " + err.status + ")";
    el.appendChild(code);
  }
}

// showNote shows text in el, or hides el when text is not given.
function showNote(el, text) {
  el.textContent = text || "";
  el.hidden = !text;
}

function pct(x) {
  return (100 * x).toFixed(1) + "%";
}

// The policy's switches that tell apart texts its measure passes
// (rule.told_apart_by of /v1/compare): what differs, and the server's flag.
const toldApart = {
  numbers: ["their numbers differ", "--distinct-numbers"],
  negation: ["their words of negation differ", "--distinct-negation"],
};

// ruleWhy says which rule of the server's policy judged a compared pair
// (r, the answer of /v1/compare) and what decided: the distance bound, or
// the rule's measure against its threshold, and a switch of the policy
// that told apart texts the measure passes.
function ruleWhy(r) {
  const rule = r.rule;
  if (!rule) return "";
  const name = {
    tiny: "Tiny-text rule (texts of a few words)",
    short: "Short-text rule (both texts short)",
  }[rule.name] || "Long-text rule (a text is long)";
  const measure = { levenshtein: "Levenshtein ratio", jaccard: "Jaccard similarity", cosine: "cosine similarity" }[rule.measure] || rule.measure;
  const told = toldApart[rule.told_apart_by];
  // The measure passed, yet the texts are not near-duplicates: "under"
  // would contradict the figures.
  const judged = told
    ? `the ${measure} ${pct(r.similarity)} is at least ${pct(rule.min_similarity)}, but ${told[0]}, and this server tells such texts apart (${told[1]})`
    : `the ${measure} ${pct(r.similarity)} is ${r.duplicate ? "at least" : "under"} ${pct(rule.min_similarity)}`;
  if (r.distance > rule.max_distance && rule.one_word_apart) {
    // The tiny rule's exception: one word apart, compared whatever the distance.
    return `${name}: ${r.distance} bits apart, more than its ${rule.max_distance}, but one word apart, so compared all the same: ${judged}.`;
  }
  if (r.distance > rule.max_distance) {
    let why = `${name}: ${r.distance} bits apart, more than its ${rule.max_distance}, so the texts are not compared.`;
    const score = r.scores && r.scores[rule.measure];
    if (typeof score === "number" && score >= rule.min_similarity) {
      if (told) {
        // No distance makes them near-duplicates.
        why += ` Their ${measure}, ${pct(score)}, would pass, but ${told[0]}, and this server tells such texts apart (${told[1]}).`;
      } else if (serverCould(r.profile, r.bits, r.distance)) {
        // The server's --tiny-k, --short-k or --k sets the distance.
        why += ` Their ${measure}, ${pct(score)}, would pass: a server allowing ${r.distance} bits would call them near-duplicates.`;
      }
    }
    return why;
  }
  return `${name}: within its ${rule.max_distance} bits, and ${judged}.`;
}

// The profiles a server fingerprints its store with (serve --profile);
// the compare form offers others, such as nilsimsa, for comparison only.
const serverProfiles = new Set(["default", "classic", "py-simhash", "go-mfonda"]);

// serverCould tells whether a server could be run to allow distance bits
// between fingerprints of profile at that width: its --k, --short-k and
// --tiny-k take at most 32 bits per 64.
function serverCould(profile, bits, distance) {
  return serverProfiles.has(profile) && distance <= (32 * bits) / 64;
}

// hexBits returns the bits of a hex fingerprint, most significant first.
function hexBits(hex) {
  const bits = [];
  for (const c of hex) {
    const v = parseInt(c, 16);
    for (let i = 3; i >= 0; i--) bits.push((v >> i) & 1);
  }
  return bits;
}

function drawGrid(el, bits, other) {
  el.textContent = "";
  const cols = bits.length > 128 ? 16 : bits.length > 64 ? 16 : 8;
  el.style.setProperty("--cols", cols);
  el.setAttribute("role", "img");
  let differ = 0;
  bits.forEach((b, i) => {
    const cell = document.createElement("span");
    cell.className = "cell" + (b ? " on" : "") + (b !== other[i] ? " diff" : "");
    if (b !== other[i]) differ++;
    cell.title = "bit " + (bits.length - 1 - i) + ": " + b;
    el.appendChild(cell);
  });
  el.setAttribute("aria-label", bits.length + " bits, " + differ + " differ from the other text");
}

// The parts of each section the page fills: its result, its error and
// its note (on an answer that came for inputs since changed).
const sections = {
  compare: { result: "compare-result", error: "compare-error", note: "compare-note" },
  doc: { result: "doc-result", error: "doc-error", note: "doc-note" },
  stats: { result: "stats", error: "stats-error" },
  list: { result: "list-result", error: "list-error" },
};

// clearSection hides what a section shows of its last request: once its
// inputs change, that is no longer the answer for them.
function clearSection(sec) {
  $(sec.result).hidden = true;
  showError($(sec.error));
  if (sec.note) showNote($(sec.note));
}

// withBusy runs fn, the request of one section: while it runs, the
// section's buttons are disabled, the one pressed says what goes on
// (label) and the section's result is marked busy; its last error and note
// go at once. Then the pressed button gets the focus back (disabling it
// took it away), and the page asks the server again whether it is ready:
// the badge follows what the last request found.
async function withBusy(sec, buttons, pressed, label, fn) {
  const focused = document.activeElement, text = pressed.textContent, result = $(sec.result);
  buttons.forEach((b) => (b.disabled = true));
  pressed.textContent = label;
  pressed.classList.add("busy");
  result.setAttribute("aria-busy", "true");
  showError($(sec.error));
  if (sec.note) showNote($(sec.note));
  try {
    await fn();
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    pressed.textContent = text;
    pressed.classList.remove("busy");
    result.removeAttribute("aria-busy");
    if (buttons.includes(focused) && (!document.activeElement || document.activeElement === document.body)) focused.focus();
    checkReady();
  }
}

// sameInputs tells whether two requests' inputs are the same.
function sameInputs(x, y) {
  return JSON.stringify(x) === JSON.stringify(y);
}

// The server's own profile and width, from its stats: what the compare
// form's first choices stand for.
let serverProfile = "", serverBits = 0;

// profileWidths returns the widths the compare form's chosen profile makes
// (its option's data-widths), or null when not known.
function profileWidths() {
  const sel = $("profile");
  let opt = sel.options[sel.selectedIndex];
  if (!opt.value) opt = [...sel.options].find((o) => o.value && o.value === serverProfile);
  return opt && opt.dataset.widths ? opt.dataset.widths.split(" ").map(Number) : null;
}

// syncWidths offers only the widths the chosen profile makes: a profile of
// one width (go-mfonda, nilsimsa) shows it, and the menu is disabled.
function syncWidths() {
  const sel = $("bits"), widths = profileWidths();
  const fixed = widths && widths.length === 1;
  for (const o of sel.options) {
    if (o.value) o.disabled = fixed || (widths !== null && !widths.includes(Number(o.value)));
  }
  if (sel.options[sel.selectedIndex].disabled) sel.value = "";
  sel.disabled = fixed;
  sel.options[0].textContent = fixed ? widths[0] + " bits" : serverBits ? "server's: " + serverBits + " bits" : "default";
}

// compareInputs returns the compare form's request.
function compareInputs() {
  const body = { a: $("text-a").value, b: $("text-b").value };
  if ($("profile").value) body.profile = $("profile").value;
  if ($("bits").value && !$("bits").disabled) body.bits = parseInt($("bits").value, 10);
  return body;
}

// compare compares the texts the compare form holds. source, when given,
// says where they came from (a match of the store's), shown with the
// result.
async function compare(ev, source) {
  if (ev) ev.preventDefault();
  const body = compareInputs();
  await withBusy(sections.compare, [$("compare-btn")], $("compare-btn"), "Comparing…", async () => {
    try {
      if (!body.a.trim() || !body.b.trim()) throw new Error("Type a text in both boxes.");
      const r = await api("POST", "/v1/compare", body);
      if (!sameInputs(body, compareInputs())) throw new Changed();
      $("distance").textContent = r.distance;
      $("width").textContent = r.bits;
      $("fp-sim").textContent = pct(r.fingerprint_similarity);
      $("jaccard").textContent = pct(r.scores.jaccard);
      $("cosine").textContent = pct(r.scores.cosine);
      $("levenshtein").textContent = pct(r.scores.levenshtein);
      // The policy skips its measure once the distance alone rules the
      // pair out, and reports 0 then.
      $("policy-sim").textContent = !r.duplicate && r.similarity === 0 ? "— (too far apart)" : pct(r.similarity);
      const v = $("verdict");
      v.textContent = r.duplicate ? "Near-duplicates" : "Not near-duplicates";
      v.className = "verdict " + (r.duplicate ? "dup" : "new");
      $("verdict-why").textContent = ruleWhy(r);
      showNote($("compare-source"), source);
      $("fp-a").textContent = r.fingerprint_a;
      $("fp-b").textContent = r.fingerprint_b;
      const a = hexBits(r.fingerprint_a), b = hexBits(r.fingerprint_b);
      drawGrid($("grid-a"), a, b);
      drawGrid($("grid-b"), b, a);
      $("compare-result").hidden = false;
    } catch (e) {
      // The last result is not the answer for these texts: hide it.
      $("compare-result").hidden = true;
      if (e instanceof Changed || !sameInputs(body, compareInputs())) {
        showNote($("compare-note"), "The texts, profile or width changed while the server was comparing: press Compare for what the form holds now.");
        return;
      }
      // The API names the texts "a" and "b"; the page calls them Text A and B.
      e.message = e.message.replace(/"a"/g, "Text A").replace(/"b"/g, "Text B");
      showError($("compare-error"), e);
    }
  });
}

// Changed is thrown for an answer that came when the form's inputs were no
// longer those sent: it is not the answer for what the form holds.
class Changed extends Error {}

// matchesShown counts the match tables drawn: a stored text fetched for
// a table since replaced is not shown in the new one.
let matchesShown = 0;

// showMatches fills the match table of the text checked. Each cell carries
// its column's name (data-label), which a phone's narrow layout shows above
// the value in place of the header row. Each match gets a Compare button,
// which compares checked with the match's stored text.
function showMatches(matches, checked) {
  const tbody = $("matches").querySelector("tbody");
  const labels = [...$("matches").querySelectorAll("thead th")].map((th) => th.textContent);
  tbody.textContent = "";
  matchesShown++;
  (matches || []).forEach((m, n) => {
    const tr = document.createElement("tr");
    tr.dataset.id = m.id;
    const cells = [m.id, m.distance, pct(m.similarity), m.scores.jaccard, m.scores.cosine, m.scores.levenshtein];
    cells.forEach((v, i) => {
      const td = document.createElement("td");
      if (i === 0) {
        // The id, and under it the start of the stored text once fetched.
        const id = document.createElement("span");
        id.className = "match-id";
        id.id = "match-" + matchesShown + "-" + n;
        id.textContent = v;
        const text = document.createElement("span");
        text.className = "excerpt";
        text.hidden = true;
        td.append(id, text);
      } else if (i < 3) {
        td.textContent = v;
      } else if (v === null || v === undefined) {
        // A server run with --scores rule computes only the measure its
        // policy decided by; 0% would read as "not similar at all".
        td.textContent = "not computed";
        td.className = "none";
        td.title = "The server computes only the measure its policy decides by (neardup serve --scores rule); the match's similarity is that measure's.";
      } else {
        td.textContent = pct(v);
      }
      td.dataset.label = labels[i];
      tr.appendChild(td);
    });
    const td = document.createElement("td");
    td.className = "act";
    const btn = document.createElement("button");
    btn.type = "button";
    btn.className = "compare-match";
    btn.textContent = "Compare";
    // Among the rows' buttons, each is told by its match's id.
    btn.setAttribute("aria-describedby", "match-" + matchesShown + "-" + n);
    btn.title = "Compare the text checked with " + m.id + " as stored";
    btn.addEventListener("click", () => compareStored(m.id, checked, btn));
    td.appendChild(btn);
    tr.appendChild(td);
    tbody.appendChild(tr);
  });
  const none = !matches || matches.length === 0;
  $("matches").hidden = none;
  $("no-matches").hidden = !none;
}

// matchButtons returns the Compare buttons of the match table.
function matchButtons() {
  return [...$("matches").querySelectorAll("button.compare-match")];
}

// docButtons returns the buttons of the Check or add section.
function docButtons() {
  return [$("check-btn"), $("add-btn"), ...matchButtons()];
}

// docPath is the API's path of the stored document id. The id is
// percent-encoded, dots too when it is only dots ("." and ".." are path
// segments a URL resolves away), as the Go client does.
function docPath(id) {
  let e = encodeURIComponent(id);
  if (e.replace(/\./g, "") === "") e = e.replace(/\./g, "%2E");
  return "/v1/documents/" + e;
}

// dotID tells whether the page cannot ask for the document id: a browser
// resolves a path segment "." or ".." away even written %2E or %2E%2E
// (the URL standard says so), and would ask for another path.
function dotID(id) {
  return id === "." || id === "..";
}

// dotIDNote says why the page cannot ask for the document id (dotID), and
// how to; it ends with a command, not a full stop, so that it can be
// copied.
function dotIDNote(id) {
  return `A browser cannot ask for the document with id "${id}" (it takes "${id}" in a path for a step, even written ${docPath(id).slice("/v1/documents/".length)}); curl can: curl ${location.origin}${docPath(id)}`;
}

// excerpt returns the first n or so characters of text, its white space
// run together, cut after a word when there is more.
function excerpt(text, n = 200) {
  const s = text.replace(/\s+/g, " ").trim(), chars = Array.from(s);
  if (chars.length <= n) return s;
  let cut = chars.slice(0, n).join("");
  const space = cut.lastIndexOf(" ");
  if (space > cut.length * 0.6) cut = cut.slice(0, space);
  return cut.replace(/[\s.,;:]+$/, "") + "…";
}

// showExcerpts fetches the stored text of each match of the table shown,
// one after the other, and shows its start under the match's id. It is a
// help to reading, no more: a text that cannot be fetched is left out (its
// Compare button says why), and a table drawn since stops it.
async function showExcerpts() {
  const table = matchesShown;
  for (const tr of $("matches").querySelectorAll("tbody tr")) {
    if (table !== matchesShown) return;
    if (dotID(tr.dataset.id)) continue;
    try {
      const d = await api("GET", docPath(tr.dataset.id));
      if (table !== matchesShown || !d.text) continue;
      const el = tr.querySelector(".excerpt");
      el.textContent = excerpt(d.text);
      el.hidden = false;
    } catch (_) {
      // Left out: see above.
    }
  }
}

// compareStored fetches the stored document id, a match of the text
// checked, and compares the two in the compare section: Text A the text
// checked, Text B the stored one, with the server's profile and width (those
// the store matched them with). The compare section is then brought into
// view, the focus on its answer. A document gone, or stored without its
// text, gets a message in the Check or add section, and the compare form is
// left as it was; so it is when the form, or the text checked, changed
// while the document was on its way.
async function compareStored(id, checked, pressed) {
  const before = compareInputs();
  let text = null;
  await withBusy(sections.doc, docButtons(), pressed, "Loading…", async () => {
    if (dotID(id)) {
      showNote($("doc-note"), dotIDNote(id));
      return;
    }
    try {
      const d = await api("GET", docPath(id));
      if (!d.text) throw new Error("The store keeps no text of " + id + " (only its fingerprint): there is nothing to compare with.");
      if ($("doc-text").value !== checked) {
        showNote($("doc-note"), "The text changed while the page was fetching " + id + ": check it again to compare it with its matches.");
      } else if (!sameInputs(before, compareInputs())) {
        showNote($("doc-note"), "The compare form changed while the page was fetching " + id + ": press Compare again to load the two texts into it.");
      } else {
        text = d.text;
      }
    } catch (e) {
      if (e.status === 404 && e.code === "not_found") {
        e.message = "The store no longer holds " + id + " (it was deleted or expired since the check): there is nothing to compare with.";
      }
      showError($("doc-error"), e);
    }
  });
  if (text === null) return;
  $("text-a").value = checked;
  $("text-b").value = text;
  $("profile").value = "";
  $("bits").value = "";
  syncWidths();
  clearSection(sections.compare);
  $("compare").scrollIntoView({ block: "start" });
  await compare(null, "Text A is the text checked, Text B the stored document " + id + ".");
  // The answer, or why there is none.
  const answer = ["compare-result", "compare-error", "compare-note"].map($).find((el) => !el.hidden);
  if (answer) answer.focus({ preventScroll: true });
}

// docInputs returns the inputs of Check and add or Check only: the text,
// and the id when one is given (Check and add posts it; Check only asks
// whether it is taken).
function docInputs() {
  const body = { text: $("doc-text").value };
  if ($("doc-id").value.trim()) body.id = $("doc-id").value.trim();
  return body;
}

// storedUnder returns the document stored under id, or null when none is
// (GET /v1/documents/{id}).
async function storedUnder(id) {
  try {
    return await api("GET", docPath(id));
  } catch (e) {
    if (e.status === 404 && e.code === "not_found") return null;
    throw e;
  }
}

// idVerdict says what Check and add would make of the id of a text
// checked, given d, the document stored under it: nothing added for the
// same text, a refusal (id_conflict) for another. The store compares the
// texts it keeps; one stored without its text cannot be compared here.
function idVerdict(id, d, text) {
  if (d.text === text) return { text: "Already stored as " + id + " with this text: adding it would add nothing.", className: "verdict same" };
  if (!d.text) return { text: "The id " + id + " is taken (the store keeps no text of it): adding this text under it would be refused unless it is the text stored.", className: "verdict dup" };
  return { text: "Adding it would be refused: the id " + id + " is stored with another text.", className: "verdict dup" };
}

async function submitDoc(insert) {
  const body = docInputs(), text = body.text;
  const pressed = insert ? $("add-btn") : $("check-btn");
  await withBusy(sections.doc, docButtons(), pressed, insert ? "Adding…" : "Checking…", async () => {
    const v = $("doc-verdict");
    try {
      if (!text.trim()) throw new Error("Type a document first.");
      if (insert) {
        const r = await api("POST", "/v1/documents", body);
        loadStats();
        if (r.duplicate) {
          v.textContent = "Duplicate of " + r.duplicate_of + " (distance " + r.distance + ", similarity " + pct(r.similarity) + "); not stored.";
          v.className = "verdict dup";
        } else if (r.inserted === false) {
          // The id was stored before with this very text: a repeat of
          // that post, which stores nothing.
          v.textContent = "Already stored as " + r.id + " with this text; nothing added.";
          v.className = "verdict same";
        } else {
          v.textContent = "New: stored as " + r.id + ".";
          v.className = "verdict new";
          refreshList();
        }
        showMatches(r.matches, text);
        // A repeat is not checked against the store, so its lack of
        // matches says nothing of near-duplicates.
        if (r.inserted === false && !r.duplicate) $("no-matches").hidden = true;
      } else {
        const r = await api("POST", "/v1/query", { text });
        // Check and add would be refused under an id taken by another
        // text, whatever the text's matches: say so before it is pressed.
        const stored = body.id && !dotID(body.id) ? await storedUnder(body.id) : null;
        loadStats();
        const m = r.duplicate ? (r.matches || []).find((x) => x.id === r.duplicate_of) : null;
        if (m) {
          v.textContent = "Would be a duplicate of " + r.duplicate_of + " (distance " + m.distance + ", similarity " + pct(m.similarity) + ").";
          v.className = "verdict dup";
        } else if (r.duplicate) {
          v.textContent = "Would be a duplicate of " + r.duplicate_of + ".";
          v.className = "verdict dup";
        } else {
          v.textContent = "Would be new.";
          v.className = "verdict new";
        }
        if (stored) {
          const idv = idVerdict(body.id, stored, text);
          v.textContent = idv.className === "verdict same" ? idv.text : v.textContent + " " + idv.text;
          v.className = idv.className;
        }
        showMatches(r.matches, text);
      }
      if (!sameInputs(body, docInputs())) throw new Changed();
      if (!insert && body.id && dotID(body.id)) {
        showNote($("doc-note"), `Whether the id "${body.id}" is taken, the page cannot tell. ${dotIDNote(body.id)}`);
      }
      $("doc-result").hidden = false;
      showExcerpts();
    } catch (e) {
      $("doc-result").hidden = true; // not the answer for this text
      if (e instanceof Changed && insert) {
        // The document was added all the same: say what became of it.
        showNote($("doc-note"), "The text or id changed while the server was adding the document. The document as sent: " + v.textContent);
      } else if (e instanceof Changed || (!insert && !sameInputs(body, docInputs()))) {
        showNote($("doc-note"), "The text changed while the server was checking it: press Check only for the text the form holds now.");
      } else {
        // The page lets no blank text through: the server's "missing or
        // empty" is of one whose characters are all invisible
        // (zero-width spaces, say).
        if (e.code === "missing_text") e.message = "The text has no visible characters.";
        // An add that failed is shown whatever the form holds now: a
        // note that the text changed would hide that nothing was added.
        showError($("doc-error"), e);
        if (!sameInputs(body, docInputs())) {
          showNote($("doc-note"), "The text or id changed while the server was adding the document: the error above is the answer for the document as sent.");
        }
      }
    }
  });
}

// Stats measured in bytes or seconds get a name without the unit and a
// value in units a person reads at a glance; the exact figure is the
// value's title.
const statLabels = {
  store_bytes: "store size",
  max_batch: "largest batch, documents",
  max_body_bytes: "largest request",
  index_bytes: "index memory",
  free_bytes: "free disk",
  retention_seconds: "retention",
  open_seconds: "opened in",
  bits: "fingerprint bits",
  k: "distance, long texts",
  short_k: "distance, short texts",
  tiny_k: "distance, tiny texts",
  tiny_length: "tiny texts, under",
  tiny_words: "one word apart, tiny texts of up to",
  candidates: "candidates verified",
  rejected: "candidates turned down",
  syncs: "disk syncs",
};

// Stats whose name does not say enough get a title that does.
const statTitles = {
  k: "Fingerprints this many bits apart or fewer are candidates for a long text",
  short_k: "Fingerprints this many bits apart or fewer are candidates for a short text",
  tiny_k: "Fingerprints this many bits apart or fewer are candidates for a tiny text (a few words)",
  tiny_length: "Texts of fewer normalized characters than this are tiny",
  tiny_words: "Tiny texts of 4 words to this many that are one word apart are compared whatever their distance",
  deletion_keys: "Hashes of the words of tiny texts with one word left out, held in memory to find the texts one word apart",
  pipeline: "How texts are read before they are fingerprinted and compared, where that is not the default",
  distinct_numbers: "Texts whose numbers differ are never duplicates",
  distinct_negation: "Texts whose words of negation (not, never, 不, 没...) differ are never duplicates",
  candidates: "Stored documents whose fingerprints were near enough to be compared text to text",
  rejected: "Candidates whose texts were not similar enough to count as duplicates",
  syncs: "Commits written to disk and synced",
  short_documents: "Stored documents short enough for the short-text or tiny-text rule",
};

// Stats that count events since the engine opened: each start of the
// server counts them from 0 again, which their labels say.
const sinceStart = new Set(["checks", "inserts", "duplicates", "candidates", "rejected", "expired", "deleted", "syncs"]);

function statLabel(key) {
  return (statLabels[key] ?? key.replace(/_/g, " ")) + (sinceStart.has(key) ? " since the server started" : "");
}

function formatBytes(n) {
  const units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) {
    n /= 1024;
    i++;
  }
  return (i === 0 ? String(n) : n.toFixed(1)) + " " + units[i];
}

function formatSeconds(s) {
  if (s === 0) return "0 s";
  for (const [unit, size] of [["d", 86400], ["h", 3600], ["min", 60]]) {
    if (s >= size && s % size === 0) return (s / size).toLocaleString("en") + " " + unit;
  }
  if (s >= 3600) return (s / 3600).toFixed(1) + " h";
  if (s >= 60) return (s / 60).toFixed(1) + " min";
  return (s < 10 ? s.toFixed(2) : s.toFixed(0)) + " s";
}

// Stats that are distances in bits, and the tiny-text length, which 0
// turns off.
const bitStats = new Set(["k", "short_k", "tiny_k"]);

// Stats that are switches of the server's policy; other true-or-false
// stats are states (disk_full).
const switchStats = new Set(["distinct_numbers", "distinct_negation"]);

function formatStat(key, v) {
  if (typeof v === "boolean") return switchStats.has(key) ? (v ? "on" : "off") : v ? "yes" : "no";
  if (typeof v !== "number") return String(v);
  if (key.endsWith("_bytes")) return formatBytes(v);
  if (key.endsWith("_seconds")) return formatSeconds(v);
  if (bitStats.has(key)) return v.toLocaleString("en") + (v === 1 ? " bit" : " bits");
  if (key === "tiny_length") return v === 0 ? "off" : v.toLocaleString("en") + " characters";
  if (key === "tiny_words") return v.toLocaleString("en") + " words";
  return v.toLocaleString("en");
}

function flatStats(prefix, obj, out) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? prefix + " " + k : k;
    if (v !== null && typeof v === "object" && !Array.isArray(v)) flatStats(key, v, out);
    else out.push([key, v]);
  }
  return out;
}

// loadStats shows the server's stats. It asks up to tries times while the
// server cannot answer for the moment (at load, a server starting or busy
// answers in a while), waiting a little longer each time.
async function loadStats(tries = 1) {
  for (let i = 1; ; i++) {
    try {
      showStats(await api("GET", "/v1/stats"));
      return;
    } catch (e) {
      if (i < tries && e.retry) {
        await new Promise((done) => setTimeout(done, i * waits.statsRetry));
        continue;
      }
      $("stats").hidden = true; // figures of another moment
      showError($("stats-error"), e);
      return;
    }
  }
}

// statsShown tells whether the stats section shows the server's stats.
let statsShown = false;

// showStats fills the stats section with the server's stats s.
function showStats(s) {
  // The compare form's first choices are the server's own: name them.
  serverProfile = s.profile || "";
  serverBits = s.bits || 0;
  if (s.profile) $("profile").options[0].textContent = "server's: " + s.profile;
  syncWidths();
  const dl = $("stats");
  dl.textContent = "";
  for (const [k, v] of flatStats("", s, [])) {
    const div = document.createElement("div");
    const dt = document.createElement("dt");
    const dd = document.createElement("dd");
    dt.textContent = statLabel(k);
    if (statTitles[k]) dt.title = statTitles[k];
    dd.textContent = formatStat(k, v);
    if (dd.textContent !== String(v)) dd.title = String(v);
    dd.dataset.stat = k;
    div.append(dt, dd);
    dl.appendChild(div);
  }
  dl.hidden = false;
  statsShown = true;
  showError($("stats-error"));
}

// listPage is how many stored documents the list asks for at a time.
const listPage = 20;

// listNext is the cursor of the stored documents' next page: empty when
// the list shows the last one, or none yet.
let listNext = "";

// loadList shows the first page of the stored documents, or with more the
// next one under those shown (GET /v1/documents); limit is the page's
// length.
async function loadList(more, limit = listPage) {
  let path = "/v1/documents?limit=" + limit;
  if (more && listNext) path += "&after=" + encodeURIComponent(listNext);
  try {
    showList(await api("GET", path), more);
  } catch (e) {
    if (!more) $("list-result").hidden = true; // documents of another moment
    showError($("list-error"), e);
  }
}

// showList shows page, a page of stored documents, in place of the rows
// shown or, with more, under them. Each cell carries its column's name
// (data-label) for a phone's narrow layout, as the match table's do.
function showList(page, more) {
  const tbody = $("stored").querySelector("tbody");
  const labels = [...$("stored").querySelectorAll("thead th")].map((th) => th.textContent);
  if (!more) tbody.textContent = "";
  for (const d of page.documents || []) {
    const tr = document.createElement("tr");
    tr.dataset.id = d.id;
    const seen = (d.time || "").replace("T", " ").replace("Z", " UTC");
    [d.id, seen, excerpt(d.text || "", 160)].forEach((v, i) => {
      const td = document.createElement("td");
      td.textContent = v;
      td.dataset.label = labels[i];
      if (i === 2 && d.text && v !== d.text) td.title = excerpt(d.text, 1000);
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }
  listNext = page.next || "";
  $("more-btn").hidden = !listNext;
  const none = tbody.children.length === 0;
  $("stored").hidden = none;
  $("list-none").hidden = !none;
  $("list-result").hidden = false;
}

// listButtons returns the buttons of the stored documents' list.
function listButtons() {
  return [$("list-btn"), $("more-btn")];
}

// pressList runs the request of a list button, pressed. Once the list is
// shown, its first button loads it again: it says Refresh.
async function pressList(pressed, more) {
  await withBusy(sections.list, listButtons(), pressed, "Loading…", () => loadList(more));
  if (!$("list-result").hidden) $("list-btn").textContent = "Refresh";
}

// refreshList loads the stored documents shown again, from the first, with
// one row more (at least a page): a document just added, last in the
// store's order, then appears under them when the list showed them all.
// A list not shown, or on its way, is left alone.
function refreshList() {
  if ($("list-result").hidden || $("list-btn").disabled) return;
  const rows = $("stored").querySelectorAll("tbody tr").length;
  withBusy(sections.list, listButtons(), $("list-btn"), "Loading…", () => loadList(false, Math.min(10000, Math.max(listPage, rows + 1))));
}

// readyTimer is the next ask whether the server is ready; readyAsking
// tells whether an ask is on its way.
let readyTimer = 0, readyAsking = false;

// checkReady asks the server whether it is ready and shows the answer in
// the badge. It asks again now and then while the page is shown, ready or
// not, so that the badge follows a server that stops; never while an ask
// is on its way, so that a server slow to answer is not asked again and
// again. Once the server is ready again, the errors of not reaching it
// go, and stats it could not give are asked for again.
async function checkReady() {
  if (readyAsking) return;
  readyAsking = true;
  const badge = $("ready");
  const wasDown = badge.classList.contains("down");
  let ready = false;
  try {
    // Never an answer from the cache, nor one shared with another ask.
    const resp = await fetch("/readyz", { cache: "no-store", signal: AbortSignal.timeout(waits.request) });
    ready = resp.ok;
    let code = "", message = "";
    if (!resp.ok) {
      try {
        ({ code, message } = (await resp.json()).error);
      } catch (_) {
        // Not the server's JSON error: the status says enough.
      }
    }
    badge.textContent = resp.ok ? "ready" : code === "store_failed" ? "store failed" : "not ready";
    badge.title = message || "Server readiness";
    badge.className = "badge " + (resp.ok ? "ready" : "down");
  } catch (e) {
    badge.textContent = "unreachable";
    badge.title = "Server readiness";
    badge.className = "badge down";
  } finally {
    readyAsking = false;
  }
  clearTimeout(readyTimer);
  if (!document.hidden) readyTimer = setTimeout(checkReady, ready ? waits.readyEvery : waits.readyPoll);
  if (!ready || !wasDown) return;
  const statsMissing = !statsShown || !$("stats-error").hidden;
  for (const sec of Object.values(sections)) {
    const el = $(sec.error);
    if (el.dataset.retry) showError(el);
  }
  if (statsMissing) loadStats();
}

// maxFileBytes is the largest file the page opens into a text box: more
// than any request the server takes by default, and little enough that
// the page stays quick.
const maxFileBytes = 16 << 20;

// openFile puts the text of file into the text box target, as pasting it
// would, or says in the box's section why it cannot.
async function openFile(file, target) {
  if (!file) return;
  const sec = target.id === "doc-text" ? sections.doc : sections.compare;
  const fail = (message) => {
    clearSection(sec);
    showError($(sec.error), message);
  };
  if (file.size > maxFileBytes) {
    fail(`${file.name} is ${formatBytes(file.size)}: the page opens files of up to ${formatBytes(maxFileBytes)}.`);
    return;
  }
  if (file.size === 0) {
    fail(`${file.name} is empty: there is no text to open.`);
    return;
  }
  let bytes;
  try {
    bytes = new Uint8Array(await file.arrayBuffer());
  } catch (e) {
    fail(`${file.name} could not be read (${e.message || e}).`);
    return;
  }
  if (bytes.includes(0)) {
    fail(`${file.name} is not a text file (it holds NUL bytes): open a text, HTML or Markdown file.`);
    return;
  }
  let text;
  try {
    // Strict: a file in another encoding (Latin-1, say) would otherwise
    // open with U+FFFD in place of its accented letters, unnoticed.
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch (_) {
    fail(`${file.name} is not UTF-8 text: save it as UTF-8 and open it again.`);
    return;
  }
  target.value = text;
  // As typing would: the results of the text before go.
  target.dispatchEvent(new Event("input"));
  showNote($(sec.note), `Opened ${file.name} (${formatBytes(file.size)}).`);
  target.focus();
}

// fileInputs wires the "Open a file" buttons to their file inputs, and
// lets a file be dropped on each text box.
function fileInputs() {
  for (const btn of document.querySelectorAll("button.open-file")) {
    const input = $(btn.dataset.file);
    btn.addEventListener("click", () => input.click());
    input.addEventListener("change", async () => {
      await openFile(input.files[0], $(input.dataset.into));
      input.value = ""; // so that the same file can be opened again
    });
  }
  for (const id of ["text-a", "text-b", "doc-text"]) {
    const box = $(id);
    box.addEventListener("dragover", (ev) => {
      if ([...ev.dataTransfer.types].includes("Files")) ev.preventDefault();
    });
    box.addEventListener("drop", (ev) => {
      const file = ev.dataTransfer.files[0];
      if (!file) return; // dropped text: the box takes it as it is
      ev.preventDefault();
      openFile(file, box);
    });
  }
}

document.addEventListener("DOMContentLoaded", () => {
  fileInputs();
  $("compare-form").addEventListener("submit", compare);
  $("doc-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    submitDoc(true);
  });
  $("check-btn").addEventListener("click", () => submitDoc(false));
  $("stats-btn").addEventListener("click", () => withBusy(sections.stats, [$("stats-btn")], $("stats-btn"), "Refreshing…", () => loadStats()));
  $("list-btn").addEventListener("click", () => pressList($("list-btn"), false));
  $("more-btn").addEventListener("click", () => pressList($("more-btn"), true));
  // A result is the answer for the inputs it was asked for: once they
  // change, it goes.
  for (const id of ["text-a", "text-b"]) $(id).addEventListener("input", () => clearSection(sections.compare));
  $("profile").addEventListener("change", () => {
    syncWidths();
    clearSection(sections.compare);
  });
  $("bits").addEventListener("change", () => clearSection(sections.compare));
  for (const id of ["doc-text", "doc-id"]) $(id).addEventListener("input", () => clearSection(sections.doc));
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) checkReady();
  });
  checkReady();
  loadStats(3);
});
