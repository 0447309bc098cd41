// The neardup page: talks to the JSON API of the server that served it.
"use strict";

const $ = (id) => document.getElementById(id);

// api posts (or gets) JSON and returns the decoded body, or throws an Error
// whose message is the server's error message.
async function api(method, path, body) {
  const opts = { method, headers: {} };
  if (body !== undefined) {
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body);
  }
  let resp;
  try {
    resp = await fetch(path, opts);
  } catch (e) {
    throw new Error("The server cannot be reached (" + e.message + ").");
  }
  let data = null;
  try {
    data = await resp.json();
  } catch (e) {
    throw new Error("The server answered " + resp.status + " without JSON.");
  }
  if (!resp.ok) {
    const err = data && data.error ? data.error : { code: String(resp.status), message: resp.statusText };
    throw new Error(err.message + " (" + err.code + ", HTTP " + resp.status + ")");
  }
  return data;
}

function showError(el, err) {
  if (err) {
    el.textContent = err.message || String(err);
    el.hidden = false;
  } else {
    el.hidden = true;
    el.textContent = "";
  }
}

function pct(x) {
  return (100 * x).toFixed(1) + "%";
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

// withBusy runs fn with the buttons disabled, then asks the server again
// whether it is ready: the badge follows what the last request found.
async function withBusy(buttons, fn) {
  buttons.forEach((b) => (b.disabled = true));
  try {
    await fn();
  } finally {
    buttons.forEach((b) => (b.disabled = false));
    checkReady();
  }
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

async function compare(ev) {
  ev.preventDefault();
  const body = { a: $("text-a").value, b: $("text-b").value };
  if ($("profile").value) body.profile = $("profile").value;
  if ($("bits").value && !$("bits").disabled) body.bits = parseInt($("bits").value, 10);
  await withBusy([$("compare-btn")], async () => {
    try {
      if (!body.a.trim() || !body.b.trim()) throw new Error("Type a text in both boxes.");
      const r = await api("POST", "/v1/compare", body);
      showError($("compare-error"));
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
      $("fp-a").textContent = r.fingerprint_a;
      $("fp-b").textContent = r.fingerprint_b;
      const a = hexBits(r.fingerprint_a), b = hexBits(r.fingerprint_b);
      drawGrid($("grid-a"), a, b);
      drawGrid($("grid-b"), b, a);
      $("compare-result").hidden = false;
    } catch (e) {
      // The last result is not the answer for these texts: hide it. The
      // API names the texts "a" and "b"; the page calls them Text A and B.
      $("compare-result").hidden = true;
      showError($("compare-error"), new Error(e.message.replace(/"a"/g, "Text A").replace(/"b"/g, "Text B")));
    }
  });
}

// showMatches fills the match table. Each cell carries its column's name
// (data-label), which a phone's narrow layout shows above the value in
// place of the header row.
function showMatches(matches) {
  const tbody = $("matches").querySelector("tbody");
  const labels = [...$("matches").querySelectorAll("thead th")].map((th) => th.textContent);
  tbody.textContent = "";
  for (const m of matches || []) {
    const tr = document.createElement("tr");
    tr.dataset.id = m.id;
    const cells = [m.id, m.distance, pct(m.similarity), pct(m.scores.jaccard), pct(m.scores.cosine), pct(m.scores.levenshtein)];
    cells.forEach((text, i) => {
      const td = document.createElement("td");
      td.textContent = text;
      td.dataset.label = labels[i];
      tr.appendChild(td);
    });
    tbody.appendChild(tr);
  }
  const none = !matches || matches.length === 0;
  $("matches").hidden = none;
  $("no-matches").hidden = !none;
}

async function submitDoc(insert) {
  const text = $("doc-text").value;
  await withBusy([$("check-btn"), $("add-btn")], async () => {
    try {
      if (!text.trim()) throw new Error("Type a document first.");
      const v = $("doc-verdict");
      if (insert) {
        const body = { text };
        if ($("doc-id").value.trim()) body.id = $("doc-id").value.trim();
        const r = await api("POST", "/v1/documents", body);
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
        }
        showMatches(r.matches);
      } else {
        const r = await api("POST", "/v1/query", { text });
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
        showMatches(r.matches);
      }
      showError($("doc-error"));
      $("doc-result").hidden = false;
      loadStats();
    } catch (e) {
      $("doc-result").hidden = true; // not the answer for this text
      showError($("doc-error"), e);
    }
  });
}

// Stats measured in bytes or seconds get a name without the unit and a
// value in units a person reads at a glance; the exact figure is the
// value's title.
const statLabels = {
  store_bytes: "store size",
  index_bytes: "index memory",
  free_bytes: "free disk",
  retention_seconds: "retention",
  open_seconds: "opened in",
  bits: "fingerprint bits",
  k: "distance, long texts",
  short_k: "distance, short texts",
  candidates: "candidates verified",
  rejected: "candidates turned down",
  syncs: "disk syncs",
};

// Stats whose name does not say enough get a title that does.
const statTitles = {
  k: "Fingerprints this many bits apart or fewer are candidates for a long text",
  short_k: "Fingerprints this many bits apart or fewer are candidates for a short text",
  candidates: "Stored documents whose fingerprints were near enough to be compared text to text",
  rejected: "Candidates whose texts were not similar enough to count as duplicates",
  syncs: "Commits written to disk and synced",
  short_documents: "Stored documents short enough for the short-text rule",
};

function statLabel(key) {
  return statLabels[key] ?? key.replace(/_/g, " ");
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

function formatStat(key, v) {
  if (typeof v !== "number") return String(v);
  if (key.endsWith("_bytes")) return formatBytes(v);
  if (key.endsWith("_seconds")) return formatSeconds(v);
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

async function loadStats() {
  try {
    const s = await api("GET", "/v1/stats");
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
    showError($("stats-error"));
  } catch (e) {
    $("stats").hidden = true; // figures of another moment
    showError($("stats-error"), e);
  }
}

async function checkReady() {
  const badge = $("ready");
  try {
    const resp = await fetch("/readyz");
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
    badge.className = "badge down";
  }
}

document.addEventListener("DOMContentLoaded", () => {
  $("compare-form").addEventListener("submit", compare);
  $("doc-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    submitDoc(true);
  });
  $("check-btn").addEventListener("click", () => submitDoc(false));
  $("stats-btn").addEventListener("click", () => withBusy([$("stats-btn")], loadStats));
  $("profile").addEventListener("change", syncWidths);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) checkReady();
  });
  checkReady();
  loadStats();
});
