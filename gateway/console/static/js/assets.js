// assets.js: uploaded assets as cards with their thumbnails, upload by
// drag and drop, delete; a PSD template shows its category, layer tree
// and smart objects from its manifest, and a panel to try a mockup.
import { get, call, qs, auth, watch } from "./api.js";
import { h, badge, bytes, ago, when, errorBox, toast, terminal } from "./ui.js";

const LIMIT = 24;

// kindOf guesses the asset type the API asks for; kino checks it against
// the content and names the real one if the guess is wrong.
function kindOf(file) {
  const ext = file.name.split(".").pop().toLowerCase();
  if (ext === "psd") return "psd_template";
  if (["ttf", "otf", "woff", "woff2"].includes(ext) || file.type.startsWith("font/")) return "font";
  if (["srt", "vtt"].includes(ext)) return "captions";
  return "image";
}

export async function render(main, route, signal) {
  const type = route.query.get("type") || "";
  const scope = route.query.get("scope") || "";
  const offset = Number(route.query.get("offset")) || 0;
  const go = (q) => {
    const p = new URLSearchParams({ type, scope, offset: 0, ...q });
    for (const [k, v] of [...p]) if (!v || v === "0") p.delete(k);
    location.hash = "#/assets" + (p.toString() ? "?" + p : "");
  };
  const picker = h("input", { type: "file", multiple: true, hidden: true, id: "file" });
  const status = h("div");
  const drop = h("div.drop#drop", h("p", h("b", "Drop pictures, fonts, PSD templates or captions (SRT, WebVTT) here"), " or ",
    h("button", { onclick: () => picker.click() }, "choose files")), status);
  const cards = h("div.cards#cards");
  const pager = h("div.pager");

  main.append(
    h("div.head", h("div", h("h1", "Assets"), h("p.sub", "Pictures, fonts, templates and captions that renders and jobs use by id.")),
      h("div.filters",
        h("label", "type", h("select", { onchange: (e) => go({ type: e.target.value }) },
          [["", "All types"], ["image", "Images"], ["font", "Fonts"], ["psd_template", "PSD templates"], ["captions", "Captions"]].map(([v, l]) => h("option", { value: v, selected: v === type }, l)))),
        h("label", "scope", h("select", { onchange: (e) => go({ scope: e.target.value }) },
          [["", "Mine"], ["system", "System"]].map(([v, l]) => h("option", { value: v, selected: v === scope }, l)))))),
    h("div.panel", drop, picker), cards, pager);

  ["dragenter", "dragover"].forEach((ev) => drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add("over"); }));
  ["dragleave", "drop"].forEach((ev) => drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.remove("over"); }));
  drop.addEventListener("drop", (e) => upload([...e.dataTransfer.files]));
  picker.addEventListener("change", () => upload([...picker.files]));
  await list();

  async function upload(files) {
    for (const file of files) {
      const line = h("p.note", `Uploading ${file.name} (${bytes(file.size)})…`);
      status.append(line);
      const form = new FormData();
      form.append("type", kindOf(file));
      if (scope) form.append("scope", scope);
      form.append("file", file); // last: kino streams it and reads nothing after it
      try {
        await call("POST", "/assets", form);
        line.remove();
        toast(`Uploaded ${file.name}`);
      } catch (err) {
        line.replaceWith(errorBox({ code: err.code, message: `${file.name}: ${err.message}` }));
      }
    }
    await list();
  }

  async function list() {
    const r = await get("/assets" + qs({ type, scope, limit: LIMIT, offset }), signal);
    cards.replaceChildren(...r.data.map(card));
    if (!r.data.length) cards.append(h("p.empty", "No assets yet."));
    pager.replaceChildren(h("span", r.meta.total ? `${offset + 1}–${offset + r.data.length} of ${r.meta.total}` : ""),
      h("div", h("button", { disabled: offset === 0, onclick: () => go({ offset: Math.max(0, offset - LIMIT) }) }, "← Newer"),
        h("button", { disabled: offset + r.data.length >= r.meta.total, onclick: () => go({ offset: offset + LIMIT }) }, "Older →")));
  }

  function card(a) {
    let meta = {};
    try { meta = JSON.parse(a.metadata || "{}"); } catch { /* shown without */ }
    const thumb = h("div.thumb", a.type === "font" ? "Aa" : a.type === "captions" ? "CC" : a.status === "processing" ? "…" : "—");
    if (a.thumbnailUrl) thumbnail(thumb, a);
    const del = h("button.danger", { title: "Delete", onclick: async () => {
      if (!confirm(`Delete ${a.name}? Its files are removed.`)) return;
      del.disabled = true;
      try { await call("DELETE", `/assets/${a.id}`); toast(`Deleted ${a.name}`); await list(); } catch (err) { cards.before(errorBox(err)); del.disabled = false; }
    } }, "Delete");
    return h("div.card", { dataset: { id: a.id, status: a.status } }, thumb,
      h("div.body",
        h("div.name", { title: a.name }, a.name),
        h("div.meta", h("span", a.type.replace("_", " ") + (meta.width ? ` · ${meta.width}×${meta.height}` : meta.cues ? ` · ${meta.cues} cues` : "")), h("span", bytes(a.fileSize))),
        h("div.meta", a.status === "ready" ? h("span", { title: when(a.createdAt) }, ago(a.createdAt)) : badge(a.status), a.scope === "system" ? h("span.kind", "system") : del),
        h("div.id", a.id),
        a.type === "psd_template" && meta.layers ? template(a, meta) : null));
  }
}

// template shows what kino read in a PSD template (its manifest): the
// category, the layer tree, the smart objects and what is not drawn, and
// a panel that places a dropped design into a chosen smart object.
function template(a, m) {
  const sos = m.smartObjects || [];
  const tree = h("ul.layers", (m.layers || []).map((l) => h("li", { style: `padding-left:${(l.path.split("/").length - 1) * 12}px`, title: l.path },
    h("span.kind", l.kind), " ", l.name || l.path, l.visible ? "" : " (hidden)", l.clipped ? " ↳ clipped" : "",
    l.blend && l.blend !== "normal" && l.blend !== "pass through" ? ` · ${l.blend}` : "")));
  const objs = h("ul.sos", sos.map((s) => h("li", { dataset: { path: s.path } }, h("b", s.path),
    ` · ${Math.round(s.width)}×${Math.round(s.height)} · warp ${s.warp}` + (s.clipped && s.clipped.length ? ` · clipped: ${s.clipped.join(", ")}` : ""))));
  const unsupported = (m.unsupported || []).map((u) => h("li", `${u.path}: ${u.feature} (${u.action})`));
  const parts = [h("summary", `${a.category ? a.category + " · " : ""}${(m.layers || []).length} layers · ${sos.length} smart object${sos.length === 1 ? "" : "s"}`),
    h("div.note", "Layers"), tree, h("div.note", "Smart objects"), sos.length ? objs : h("p.note", "None: there is nothing to place a design into.")];
  if (unsupported.length) parts.push(h("div.note", "Not drawn"), h("ul.layers", unsupported));
  if (sos.length) parts.push(tryMockup(a, sos));
  return h("details.template", parts);
}

// tryMockup uploads a dropped design as an image asset, runs mockup.render
// with it in the chosen smart object, and shows the picture.
function tryMockup(a, sos) {
  const pick = h("select.so", sos.map((s) => h("option", { value: s.path }, s.path)));
  const file = h("input", { type: "file", accept: "image/png,image/jpeg,image/webp", hidden: true });
  const out = h("div.mockup");
  const drop = h("div.drop.small", h("span", "Drop a design here or "), h("button", { onclick: () => file.click() }, "choose one"));
  ["dragenter", "dragover"].forEach((ev) => drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.add("over"); }));
  ["dragleave", "drop"].forEach((ev) => drop.addEventListener(ev, (e) => { e.preventDefault(); drop.classList.remove("over"); }));
  drop.addEventListener("drop", (e) => e.dataTransfer.files[0] && run(e.dataTransfer.files[0]));
  file.addEventListener("change", () => file.files[0] && run(file.files[0]));
  async function run(design) {
    out.replaceChildren(h("p.note", `Placing ${design.name}…`));
    try {
      const form = new FormData();
      form.append("type", "image");
      form.append("file", design);
      const up = await call("POST", "/assets", form);
      const job = await call("POST", "/jobs", { type: "mockup.render", inputs: { template: a.id, design: up.data.id },
        params: { smartObject: pick.value, width: 800 } });
      let last = job.data;
      if (!terminal(last.status)) await watch(`/jobs/${last.id}/events`, (j) => { last = j.data || j; });
      if (!last.outputUrl) last = (await get(`/jobs/${last.id}`)).data;
      if (last.status !== "complete") throw { code: last.errorCode, message: last.errorMessage || `the job ended ${last.status}` };
      out.replaceChildren(h("a", { href: last.outputUrl, target: "_blank" }, h("img", { alt: "mockup", src: last.outputUrl, dataset: { job: last.id } })));
    } catch (err) {
      out.replaceChildren(errorBox(err));
    }
  }
  return h("div.try", h("div.note", "Try a mockup"), h("label", "smart object ", pick), drop, file, out);
}

// thumbnail shows the asset's thumbnail from the URL kino made for it,
// signed where storage needs it (API keys on, or a private bucket); a
// picture whose thumbnail will not load shows its content, read through
// the API with the key.
function thumbnail(box, a) {
  const img = h("img", { alt: a.name, loading: "lazy", src: a.thumbnailUrl });
  img.addEventListener("error", async () => {
    if (a.type !== "image" || img.dataset.fallback) return;
    img.dataset.fallback = "1";
    const res = await fetch(`/assets/${a.id}/content`, { headers: auth.key ? { Authorization: "Bearer " + auth.key } : {} });
    if (res.ok) img.src = URL.createObjectURL(await res.blob());
  }, { once: false });
  box.replaceChildren(img);
}
