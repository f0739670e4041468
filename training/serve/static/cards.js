// braincards serve: cards drawn as SVG from the server's table data (no images, no network).
// The Brain: coloured object cards ({colour, object, effect}); Oh My Brain: value cards with
// their effect ({value, effect}); the Boar: motif cards ({motif}); a hidden card: its back.
(function () {
"use strict";

const COLOURS = {
  red: "#d64545", yellow: "#e2b522", green: "#3fa34d", blue: "#3c78d8", purple: "#8e5bc8", grey: "#7d7d7d",
};

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

function motifCard(name, remembered) {
  const h = hue(name);
  const inner = `<circle cx="26" cy="32" r="14" fill="hsl(${h}, 60%, 45%)"/>` +
    `<text x="26" y="38" font-size="16" font-weight="700" text-anchor="middle" fill="#fff">` +
    `${esc(name[0].toUpperCase())}</text><text x="26" y="62" font-size="9" text-anchor="middle" ` +
    `fill="#333">${esc(name.slice(0, 10))}</text>` +
    (remembered ? `<text x="26" y="71" font-size="7" text-anchor="middle" fill="#555">remembered</text>` : "");
  return cardFrame(`hsl(${h}, 60%, 92%)`, inner, remembered ? `${name} (your card, as you remember it)` : name);
}

// a covered card under a short memory: only its action symbol shows (the rules' "cover")
function symbolCard(effect) {
  const short = shortEffect(effect);
  const inner = `<rect x="6" y="6" width="40" height="62" rx="4" fill="none" stroke="#bbb" stroke-width="1"/>` +
    `<text x="26" y="42" font-size="${short.length > 9 ? 8 : 9.5}" font-weight="600" text-anchor="middle" ` +
    `fill="#333">${esc(short)}</text>`;
  return cardFrame("#eeeeee", inner, `covered card (${effect})`);
}

// one card of the server's table data (see braincards.envs.core.table_data) -> SVG
function cardSvg(card) {
  if (!card || card.hidden) return cardBack();
  if (card.colour) return brainCard(card.colour, card.object, card.effect);
  if (card.value !== undefined) return valueCard(String(card.value), card.effect || "");
  if (card.motif) return motifCard(card.motif, card.remembered);
  if (card.effect) return symbolCard(card.effect);
  return "";
}

// a pile: its face-up cards in order, then the backs of the hidden ones (more than three
// backs: one, with their number, so that five seats fit one screen)
function pileSvg(pile) {
  const backs = pile.hidden > 3 ? cardBack() + `<span class="count">&times;${pile.hidden}</span>`
    : Array.from({ length: pile.hidden }, cardBack).join("");
  return pile.cards.map(cardSvg).join("") + backs;
}

window.Cards = { cardSvg, pileSvg, esc };
})();
