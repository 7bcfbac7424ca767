// studio.js: the render editor's timeline, preview and property form. The
// JSON text stays the one source of truth: the timeline and the form are
// drawn from the parsed request, and every change they make is written
// back into it.
import { picture } from "./api.js";
import { h, errorBox } from "./ui.js";

const num = (v, d = 0) => (typeof v === "number" && isFinite(v) ? v : d);
const round = (v) => Math.round(v * 1000) / 1000;

// Each format's names for an object's time, place, size and content.
const fieldsOf = {
  provider_a: { start: "start", duration: "duration", x: "x", y: "y", width: "width", height: "height", text: "text",
    template: "template", smartObject: "smartObject", src: "src", color: "color" },
  unified: { start: "start", duration: "length", x: "position.x", y: "position.y", width: "size.width", height: "size.height", text: "asset.text",
    template: "asset.template", smartObject: "asset.smartObject", src: "asset.src", color: "asset.color" },
};
const visual = (t) => t !== "audio";
const shown = {
  start: () => true, duration: () => true,
  x: visual, y: visual, width: (t) => visual(t) && t !== "captions", height: (t) => visual(t) && t !== "captions",
  text: (t) => t === "text" || t === "captions",
  template: (t) => t === "mockup", smartObject: (t) => t === "mockup",
  src: (t) => ["image", "video", "audio", "captions", "mockup"].includes(t),
  color: (t) => ["color", "text", "rectangle", "ellipse"].includes(t),
};

export function getKey(obj, key) {
  return key.split(".").reduce((o, k) => (o && typeof o === "object" ? o[k] : undefined), obj);
}

export function setKey(obj, key, v) {
  const ks = key.split(".");
  const chain = [obj];
  for (const k of ks.slice(0, -1)) {
    const o = chain[chain.length - 1];
    if (!o[k] || typeof o[k] !== "object") {
      if (v === undefined) return;
      o[k] = {};
    }
    chain.push(o[k]);
  }
  const o = chain[chain.length - 1];
  const last = ks[ks.length - 1];
  if (v !== undefined) return void (o[last] = v);
  delete o[last];
  // An emptied position or size goes, so its default applies again.
  if (chain.length > 1 && !Object.keys(o).length) delete chain[chain.length - 2][ks[ks.length - 2]];
}

// model lays a request out as rows of timed objects: the layers of a
// provider_a composition (first at the bottom, as drawn) or the tracks of
// a unified one (first on top), with the transitions between them.
export function model(req) {
  const c = req && req.composition;
  if (!c || typeof c !== "object") return null;
  const unified = req.provider === "unified";
  const names = fieldsOf[unified ? "unified" : "provider_a"];
  const out = unified ? c.output || {} : c;
  const rows = [];
  const seqs = [];
  const item = (obj, path) => {
    const type = (unified ? obj.asset?.type : obj.type) || "?";
    const file = (v) => String(v ?? "").split("/").pop();
    // A mockup is named by the smart object it fills (else its template), then what fills it.
    const what = type === "mockup"
      ? [getKey(obj, names.smartObject) ?? file(getKey(obj, names.template)), file(getKey(obj, names.src))].filter(Boolean).join(" ← ")
      : getKey(obj, names.text) ?? file(getKey(obj, names.src) ?? getKey(obj, names.color));
    return { obj, path, type, label: `${type}${what ? " · " + String(what).slice(0, 40) : ""}`, start: num(obj.start), len: getKey(obj, names.duration) };
  };
  if (unified) {
    (Array.isArray(c.tracks) ? c.tracks : []).forEach((tr, t) => {
      const items = (Array.isArray(tr?.clips) ? tr.clips : [])
        .map((cl, i) => (cl && typeof cl === "object" ? item(cl, `composition.tracks[${t}].clips[${i}]`) : null)).filter(Boolean);
      rows.push({ label: `track ${t}`, items });
      seqs.push(items);
    });
  } else {
    const items = (Array.isArray(c.layers) ? c.layers : []).map((l, i) => (l && typeof l === "object" ? item(l, `composition.layers[${i}]`) : null)).filter(Boolean);
    items.forEach((it, i) => rows.push({ label: `layer ${i}`, items: [it] }));
    rows.reverse(); // the top layer on top, as on screen
    seqs.push(items);
  }
  const all = rows.flatMap((r) => r.items);
  let duration = num(out.duration, 0);
  if (!duration) duration = Math.max(0, ...all.map((it) => it.start + num(it.len, 0)));
  for (const it of all) it.len = num(it.len, Math.max(0, duration - it.start));
  const transitions = [];
  for (const seq of seqs) {
    seq.forEach((it, i) => {
      const next = seq[i + 1];
      if (!it.obj.transition || !next) return;
      transitions.push({ from: it, to: next, name: it.obj.transition.name || "?", start: next.start, end: it.start + it.len });
    });
  }
  return { unified, names, rows, items: all, transitions, duration: duration || 1, fps: num(out.fps, 25), width: num(out.width, 0), height: num(out.height, 0) };
}

// Timeline draws a model's rows on a time ruler with a playhead. Bars move
// (their start) and trim (their end) by dragging; the ruler and the empty
// track scrub the playhead.
export class Timeline {
  constructor({ onSeek, onSelect, onChange }) {
    Object.assign(this, { onSeek, onSelect, onChange });
    this.time = 0;
    this.selected = "";
    this.scale = h("div.scale");
    this.ruler = h("div.ruler", h("span.label", "time"), this.scale);
    this.rows = h("div.rows");
    this.head = h("div.playhead", h("span"));
    this.lanes = h("div.lanes", this.ruler, this.rows, this.head);
    this.el = h("div.timeline#timeline", { tabIndex: 0, title: "Drag to scrub; ← and → step a frame, Home and End go to the ends" }, this.lanes);
    this.lanes.addEventListener("pointerdown", (e) => this.down(e));
    this.el.addEventListener("keydown", (e) => {
      if (!this.m) return;
      const step = { ArrowLeft: -1, ArrowRight: 1 }[e.key];
      if (step) this.seek(this.time + step / this.m.fps);
      else if (e.key === "Home") this.seek(0);
      else if (e.key === "End") this.seek(this.last());
      else return;
      e.preventDefault();
    });
  }

  // at is the time at a page position.
  at(clientX) {
    const r = this.scale.getBoundingClientRect();
    return Math.max(0, Math.min(this.m.duration, ((clientX - r.left) / r.width) * this.m.duration));
  }

  draw(m) {
    this.m = m;
    if (!m) return this.rows.replaceChildren(h("p.note", "The timeline shows when the JSON is a request with a composition."));
    const pct = (t) => (t / m.duration) * 100 + "%";
    const step = [0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60].find((s) => m.duration / s <= 12) || 120;
    const ticks = [];
    for (let t = 0; t <= m.duration + 1e-9; t += step) ticks.push(h("span.tick", { style: `left:${pct(t)}` }, `${round(t)} s`));
    this.scale.replaceChildren(...ticks);
    this.rows.replaceChildren(...m.rows.map((row) => h("div.row", h("span.label", row.label), h("div.track",
      row.items.map((it, i) => {
        // Clips of one track that overlap (a transition) sit a little lower, so both show.
        const low = m.unified && i % 2 === 1 && row.items[i - 1] && row.items[i - 1].start + row.items[i - 1].len > it.start;
        return h("div.clip" + (low ? ".low" : "") + (it.path === this.selected ? ".on" : ""),
          { dataset: { path: it.path, type: it.type }, title: `${it.label}\n${round(it.start)} s to ${round(it.start + it.len)} s`, style: `left:${pct(it.start)};width:${pct(it.len)}` },
          h("span", it.label), h("i.trim", { dataset: { trim: "1" } }));
      }),
      m.transitions.filter((tr) => row.items.includes(tr.to)).map((tr) => h("div.transition",
        { title: `${tr.name}: ${round(tr.start)} s to ${round(tr.end)} s`, style: `left:${pct(tr.start)};width:${pct(Math.max(0, tr.end - tr.start))}` }, tr.name))))));
    this.seek(Math.min(this.time, this.last()), false);
  }

  // last is the time of the composition's last frame.
  last() { return Math.max(0, Math.ceil(this.m.duration * this.m.fps - 1e-3) - 1) / this.m.fps; }

  seek(t, tell = true) {
    if (!this.m) return;
    // A frame's own time, so the preview shows what the render has there.
    const f = this.m.fps;
    // (A little over a frame's start counts as that frame: n / fps read back.)
    this.time = Math.min(this.last(), Math.max(0, Math.floor(t * f + 1e-3)) / f);
    this.head.style.left = `calc(var(--label) + (100% - var(--label)) * ${this.time / this.m.duration})`;
    this.head.firstChild.textContent = this.time.toFixed(2) + " s";
    this.el.dataset.time = this.time;
    if (tell) this.onSeek(this.time);
  }

  select(path) {
    this.selected = path || "";
    for (const b of this.rows.querySelectorAll(".clip")) b.classList.toggle("on", b.dataset.path === this.selected);
  }

  down(e) {
    if (!this.m || e.button !== 0) return;
    const bar = e.target.closest(".clip");
    const x0 = e.clientX;
    e.preventDefault();
    let move;
    if (bar) {
      const it = this.m.items.find((i) => i.path === bar.dataset.path);
      this.onSelect(it.path);
      const trim = !!e.target.dataset.trim;
      const { start, len } = it;
      const secs = this.m.duration / this.scale.clientWidth;
      const snap = (v) => Math.round(v * 20) / 20; // 0.05 s
      let moved = false;
      move = (ev) => {
        const d = (ev.clientX - x0) * secs;
        if (!moved && Math.abs(ev.clientX - x0) < 3) return;
        moved = true;
        if (trim) this.onChange(it.path, "duration", Math.max(0.05, round(snap(len + d))));
        else this.onChange(it.path, "start", Math.max(0, round(snap(start + d))));
      };
    } else {
      move = (ev) => this.seek(this.at(ev.clientX));
      move(e);
    }
    const up = () => { window.removeEventListener("pointermove", move); window.removeEventListener("pointerup", up); };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
  }
}

// Preview keeps the picture of the frame at the playhead: at most one
// request is in flight, and when it answers, the latest wish is asked
// next (the ones in between are never sent), so dragging the playhead
// never piles requests up.
export class Preview {
  // onResult hears each answer: null for a picture, else the error.
  constructor(signal, onResult = () => {}) {
    this.signal = signal;
    this.onResult = onResult;
    this.img = h("img#preview", { alt: "the frame at the playhead" });
    this.error = h("div.preview-error");
    this.el = h("div.preview", this.img, this.error);
    this.inflight = 0;
    this.sent = 0;
    this.maxInflight = 0;
    this.shownKey = "";
  }

  // want asks for the frame at time of req.
  want(req, time, width) {
    this.wish = { req, time, width, key: JSON.stringify(req) + "@" + time + "/" + width };
    if (!this.inflight) this.next();
  }

  async next() {
    const w = this.wish;
    if (!w || w.key === this.shownKey) return;
    this.inflight++;
    this.sent++;
    this.maxInflight = Math.max(this.maxInflight, this.inflight);
    Object.assign(this.el.dataset, { requests: this.sent, maxInflight: this.maxInflight, loading: "1" });
    try {
      const body = { ...w.req, time: w.time };
      if (w.width) body.width = w.width;
      const blob = await picture("/api/render/preview", body, this.signal);
      const url = URL.createObjectURL(blob);
      await new Promise((ok) => { this.img.onload = this.img.onerror = ok; this.img.src = url; });
      if (this.url) URL.revokeObjectURL(this.url);
      this.url = url;
      this.img.dataset.time = w.time;
      this.error.replaceChildren();
      this.el.classList.remove("failed");
      this.onResult(null);
    } catch (err) {
      if (err.name === "AbortError") return;
      this.error.replaceChildren(errorBox(err));
      this.el.classList.add("failed");
      this.onResult(err);
    } finally {
      this.inflight--;
      this.shownKey = w.key;
      this.el.dataset.loading = "";
    }
    this.next();
  }
}

// Props is the form of the selected object's main properties.
export class Props {
  constructor(onChange) {
    this.onChange = onChange;
    this.el = h("div.props#props", h("p.note", "Select a bar of the timeline, or put the cursor in a layer of the JSON."));
  }

  show(m, path) {
    const it = m && m.items.find((i) => i.path === path);
    if (!it) {
      this.path = "";
      return this.el.replaceChildren(h("p.note", "Select a bar of the timeline, or put the cursor in a layer of the JSON."));
    }
    if (this.path === path && this.type === it.type && this.el.querySelector("form")) return this.fill(m, it);
    this.path = path;
    this.type = it.type;
    const rows = Object.keys(shown).filter((k) => shown[k](it.type)).map((k) => {
      const input = h(k === "text" ? "textarea" : "input", { name: k, id: "prop-" + k, type: "text", rows: k === "text" ? 2 : undefined, autocomplete: "off",
        placeholder: { start: "0", x: "center", y: "center", width: "natural", height: "natural", smartObject: "the only one" }[k] });
      input.addEventListener("input", () => this.onChange(path, k, parse(k, input.value)));
      return [h("label", { for: "prop-" + k }, m.names[k]), input];
    });
    this.el.replaceChildren(h("p.note", h("b", it.type), " at ", h("code", path)), h("form.form", { onsubmit: (e) => e.preventDefault() }, rows));
    this.fill(m, it);
  }

  // fill writes the object's values into the form, but never into the
  // field being typed in.
  fill(m, it) {
    for (const input of this.el.querySelectorAll("[name]")) {
      if (input === document.activeElement) continue;
      const v = input.name === "duration" ? it.len : getKey(it.obj, m.names[input.name]);
      input.value = v === undefined ? "" : typeof v === "object" ? JSON.stringify(v) : String(input.name === "start" ? round(num(v)) : v);
    }
  }
}

// parse reads a form value: numbers as numbers, keyframes and other JSON
// as JSON, empty as absent (the default applies).
function parse(k, s) {
  if (["text", "src", "color", "template", "smartObject"].includes(k)) return s === "" ? undefined : s;
  const t = s.trim();
  if (t === "") return undefined;
  if (/^-?\d+(\.\d+)?$/.test(t)) return Number(t);
  if (/^[[{]/.test(t)) { try { return JSON.parse(t); } catch { /* kept as typed */ } }
  return t;
}
