// braincards serve: cards drawn as SVG from the table's words (no images, no network).
// The Brain: coloured object cards ("red-lock(remove safe)"); Oh My Brain: value cards with
// their effect ("11 (mouse)"); the Boar: motif cards ("fox"); a hidden card: its back.
(function () {
"use strict";

const COLOURS = {
  red: "#d64545", yel: "#e2b522", grn: "#3fa34d", blu: "#3c78d8", pur: "#8e5bc8", gry: "#7d7d7d",
};
const COLOUR_WORDS = { red: "red", yellow: "yel", green: "grn", blue: "blu", purple: "pur", grey: "gry" };

function esc(text) {
  return String(text).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;",
    '"': "&quot;", "'": "&#39;" })[c]);
}

// a small glyph per The Brain object, drawn in a 40x40 box centred at (26, 36)
const OBJECT_GLYPHS = {
  brain: '<path d="M14 38c-4-6 2-14 8-12 2-5 10-5 12 0 6-1 9 7 5 12 2 5-4 9-8 7-3 4-10 4-13 0-5 1-8-3-4-7z" fill="#fff"/>',
  key: '<circle cx="18" cy="36" r="6" fill="none" stroke="#fff" stroke-width="3"/><path d="M24 36h16M34 36v6M39 36v5" stroke="#fff" stroke-width="3"/>',
  lock: '<rect x="15" y="34" width="22" height="16" rx="2" fill="#fff"/><path d="M19 34v-5a7 7 0 0 1 14 0v5" fill="none" stroke="#fff" stroke-width="3"/>',
  safe: '<rect x="13" y="24" width="26" height="26" rx="3" fill="#fff"/><circle cx="26" cy="37" r="6" fill="none" stroke="#444" stroke-width="2"/>',
  fingerprint: '<g fill="none" stroke="#fff" stroke-width="2"><ellipse cx="26" cy="37" rx="4" ry="6"/><ellipse cx="26" cy="37" rx="8" ry="10"/><ellipse cx="26" cy="37" rx="12" ry="14"/></g>',
  magnifying_glass: '<circle cx="23" cy="34" r="8" fill="none" stroke="#fff" stroke-width="3"/><path d="M29 40l9 9" stroke="#fff" stroke-width="4"/>',
};

function cardFrame(fill, inner, title) {
  return `<svg class="card" viewBox="0 0 52 74" role="img" aria-label="${esc(title)}">` +
    `<title>${esc(title)}</title><rect x="1" y="1" width="50" height="72" rx="6" fill="${fill}" ` +
    `stroke="#333" stroke-width="1"/>${inner}</svg>`;
}

function cardBack() {
  const inner = '<rect x="6" y="6" width="40" height="62" rx="4" fill="none" stroke="#cfc3e6" ' +
    'stroke-width="2"/><circle cx="26" cy="37" r="9" fill="#cfc3e6"/>';
  return cardFrame("#4b3a6b", inner, "hidden card");
}

// an effect in at most 9 letters, to be read at 100% zoom (the card's tooltip has it in full)
const SHORT_WORDS = { magnifying_glass: "magnifier", fingerprint: "print", extra_card: "extra",
  take_back: "take back", donate: "donate", cover: "cover", yellow: "yellow", purple: "purple" };

function shortEffect(effect) {
  const m = effect.match(/^remove ([a-z_]+)$/);
  if (m) return `x ${SHORT_WORDS[m[1]] || m[1]}`;
  return SHORT_WORDS[effect] || effect;
}

function brainCard(colour, object, effect) {
  const glyph = OBJECT_GLYPHS[object] ||
    `<text x="26" y="42" font-size="16" text-anchor="middle" fill="#fff">${esc(object[0])}</text>`;
  const label = object === "magnifying_glass" ? "magnifier" : object.replace("_", " ");
  const short = effect ? shortEffect(effect) : "";
  const inner = glyph + `<text x="26" y="14" font-size="${label.length > 9 ? 7.5 : 9}" text-anchor="middle" fill="#fff">` +
    `${esc(label.slice(0, 11))}</text>` + (short ? `<text x="26" y="67" font-size="${short.length > 9 ? 8 : 9.5}" ` +
    `font-weight="600" text-anchor="middle" fill="#fff">${esc(short)}</text>` : "");
  return cardFrame(COLOURS[colour] || "#777", inner, `${colour} ${object}${effect ? ` (${effect})` : ""}`);
}

function hue(text) {
  let h = 0;
  for (const ch of text) h = (h * 31 + ch.charCodeAt(0)) % 360;
  return h;
}

function valueCard(value, effect) {
  const fill = effect ? `hsl(${hue(effect)}, 55%, 88%)` : "#fffdf5";
  const inner = `<text x="26" y="44" font-size="24" font-weight="700" text-anchor="middle" ` +
    `fill="#222">${esc(value)}</text><text x="7" y="14" font-size="9" fill="#555">${esc(value)}</text>` +
    (effect ? `<text x="26" y="64" font-size="8" text-anchor="middle" fill="#333">` +
    `${esc(effect.slice(0, 12))}</text>` : "");
  return cardFrame(fill, inner, effect ? `${value} (${effect})` : value);
}

function motifCard(name) {
  const h = hue(name);
  const inner = `<circle cx="26" cy="32" r="14" fill="hsl(${h}, 60%, 45%)"/>` +
    `<text x="26" y="38" font-size="16" font-weight="700" text-anchor="middle" fill="#fff">` +
    `${esc(name[0].toUpperCase())}</text><text x="26" y="62" font-size="9" text-anchor="middle" ` +
    `fill="#333">${esc(name.slice(0, 10))}</text>`;
  return cardFrame(`hsl(${h}, 60%, 92%)`, inner, name);
}

// one item inside [...] -> SVG (or "" for an empty marker)
function itemCard(item) {
  item = item.trim();
  if (!item || item === "-") return "";
  let m = item.match(/^(\d+) hidden$/);
  if (m) return Array.from({ length: Number(m[1]) }, cardBack).join("");
  if (item === "?" || item === "hidden") return cardBack();
  m = item.match(/^(red|yel|grn|blu|pur|gry)-([a-z_]+)(?:\((.*)\))?$/);
  if (m) return brainCard(m[1], m[2], m[3]);
  m = item.match(/^(\d+)(?: \((.*)\))?$/);
  if (m) return valueCard(m[1], m[2]);
  if (/^[a-z_]+$/i.test(item)) return motifCard(item);
  return `<span>${esc(item)}</span>`;
}

function splitItems(inner) {
  if (inner.includes(",")) return inner.split(",");
  if (/^\d+ hidden$/.test(inner.trim())) return [inner];
  return inner.match(/\d+(?: \([^)]*\))?|[^\s,(]+(?:\([^)]*\))?/g) || [];
}

// a table line -> HTML: [..] groups become cards; The Brain's cards outside brackets too
function renderLine(line) {
  const parts = [];
  let rest = line;
  const group = /\[([^\]]*)\]/;
  let m;
  while ((m = rest.match(group))) {
    parts.push(inlineCards(rest.slice(0, m.index)));
    parts.push(`<span class="cards">${splitItems(m[1]).map(itemCard).join("")}</span>`);
    rest = rest.slice(m.index + m[0].length);
  }
  parts.push(inlineCards(rest));
  return parts.join("");
}

function inlineCards(text) {
  const re = /\b(red|yel|grn|blu|pur|gry)-([a-z_]+)(?:\(([^)]*)\))?/g;
  let out = "", last = 0, m;
  while ((m = re.exec(text))) {
    out += `<span>${esc(text.slice(last, m.index))}</span>` + brainCard(m[1], m[2], m[3]);
    last = m.index + m[0].length;
  }
  return out + (last < text.length ? `<span>${esc(text.slice(last))}</span>` : "");
}

// a move in words -> a small picture of its card, when the words name one
function moveCard(meaning) {
  const m = meaning.match(/\b(red|yellow|green|blue|purple|grey) ([a-z_]+)/);
  if (m) return brainCard(COLOUR_WORDS[m[1]], m[2], "");
  const v = meaning.match(/^(?:put|play|give|keep|draft) (\d+)(?: \(([a-z_ ]+)\))?/);
  if (v) return valueCard(v[1], v[2]);
  return "";
}

window.Cards = { renderLine, moveCard, esc };
})();
