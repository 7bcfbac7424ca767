// ui.js: small DOM helpers shared by the pages.

// h makes an element: h("a.kind.media#id", {href}, "text", child…).
export function h(tag, attrs, ...children) {
  const parts = tag.match(/[.#]?[^.#]+/g);
  const e = document.createElement(parts[0][0] === "." || parts[0][0] === "#" ? "div" : parts.shift());
  const classes = parts.filter((p) => p[0] === ".").map((p) => p.slice(1));
  const id = parts.find((p) => p[0] === "#");
  if (classes.length) e.className = classes.join(" ");
  if (id) e.id = id.slice(1);
  if (attrs === null || typeof attrs !== "object" || attrs instanceof Node || Array.isArray(attrs)) {
    children.unshift(attrs);
    attrs = null;
  }
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    // Through the CSSOM: the page's policy refuses style attributes.
    else if (k === "style") e.style.cssText = v;
    else if (k in e && typeof v !== "string") e[k] = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  add(e, children);
  return e;
}

function add(e, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// svg makes an SVG element.
export function svg(tag, attrs = {}, ...children) {
  const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  add(e, children);
  return e;
}

// tone is the colour family of a status, whichever API's word it is.
export function tone(status) {
  switch (status) {
    case "processing": case "running": case "dispatched": return "running";
    case "completed": case "complete": case "ready": return "done";
    case "failed": return "failed";
    case "cancelled": return "cancelled";
    default: return "waiting";
  }
}

export const terminal = (s) => ["completed", "complete", "failed", "cancelled"].includes(s);

export function badge(status) {
  return h("span.badge." + tone(status), { dataset: { status } }, status);
}

export function progress(pct, status) {
  const p = Math.max(0, Math.min(100, Number(pct) || 0));
  return h("div.progress", h("div.bar." + tone(status), h("i", { style: `width:${p}%` })),
    h("span.pct", p.toFixed(p % 1 ? 1 : 0) + "%"));
}

// when shows a time (ISO string or epoch milliseconds) as local time.
export function when(t) {
  if (t === undefined || t === null || t === "") return "—";
  const d = new Date(typeof t === "string" ? t : Number(t));
  return isNaN(d) ? String(t) : d.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "medium" });
}

export function ago(t) {
  const d = new Date(typeof t === "string" ? t : Number(t));
  const s = Math.round((Date.now() - d) / 1000);
  if (isNaN(s)) return "";
  if (s < 60) return `${Math.max(s, 0)} s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86400) return `${Math.round(s / 3600)} h ago`;
  return d.toLocaleDateString();
}

export function ms(v) {
  if (v === undefined || v === null) return "—";
  return v >= 1000 ? (v / 1000).toFixed(2) + " s" : Math.round(v) + " ms";
}

export function bytes(n) {
  if (!n && n !== 0) return "—";
  const u = ["B", "KB", "MB", "GB"];
  let i = 0;
  while (n >= 1024 && i < u.length - 1) { n /= 1024; i++; }
  return (i ? n.toFixed(1) : n) + " " + u[i];
}

export function errorBox(err) {
  const m = /^([A-Za-z_][\w.\[\]-]*): (.*)$/s.exec(err.message || "");
  return h("div.error", { role: "alert" }, err.code ? h("b", err.code + " ") : null,
    m ? [h("span.path", m[1]), ": " + m[2]] : err.message || String(err));
}

export function toast(text) {
  const t = h("div.toast", text);
  document.body.append(t);
  setTimeout(() => t.remove(), 2600);
}

// player shows an output in the page: video, picture or sound.
export function player(url, contentType = "") {
  const ext = (new URL(url, location.href).pathname.split(".").pop() || "").toLowerCase();
  const kind = contentType.split("/")[0] ||
    ({ mp4: "video", webm: "video", mov: "video", m3u8: "video", gif: "image", png: "image", jpg: "image", jpeg: "image", webp: "image", mp3: "audio", wav: "audio", m4a: "audio", ogg: "audio" })[ext];
  let media;
  if (kind === "video") media = h("video", { src: url, controls: true, playsInline: true, preload: "auto" });
  else if (kind === "image") media = h("img", { src: url, alt: "output" });
  else if (kind === "audio") media = h("audio", { src: url, controls: true, preload: "auto" });
  else return h("p", h("a", { href: url, target: "_blank", rel: "noopener" }, "Download the output"));
  return h("div.player", media);
}

// pretty formats JSON text (or a value) for reading.
export function pretty(v) {
  if (typeof v === "string") {
    try { return JSON.stringify(JSON.parse(v), null, 2); } catch { return v; }
  }
  return JSON.stringify(v, null, 2);
}
