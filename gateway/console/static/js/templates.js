// templates.js: stored composition templates (/api/templates): the list,
// one template's composition to edit, and a form of its {{NAME}}
// placeholders that renders it.
import { get, call, qs, ApiError } from "./api.js";
import { h, ago, when, errorBox, toast, pretty } from "./ui.js";
import { followRender, openInEditor } from "./render.js";

const LIMIT = 20;

export async function render(main, route, signal) {
  if (route.parts.length === 1) return one(main, route.parts[0], signal);
  const offset = Number(route.query.get("offset")) || 0;
  const r = await get("/api/templates" + qs({ limit: LIMIT, offset }), signal);
  const go = (o) => { location.hash = "#/templates" + (o ? "?offset=" + o : ""); };
  main.append(
    h("div.head", h("div", h("h1", "Templates"), h("p.sub", "Compositions kept to render again with other values: {{NAME}} in a text or a source is filled in by each render. Save one from Try a render."))),
    h("div.panel",
      h("table.templates", h("thead", h("tr", ["Name", "Format", "Values", "Updated"].map((t) => h("th", t)))),
        h("tbody", r.templates.length ? r.templates.map((t) => h("tr.row", { dataset: { id: t.id }, onclick: () => { location.hash = "#/templates/" + t.id; } },
          h("td", h("a", { href: "#/templates/" + t.id }, t.name), h("div.id", t.id)),
          h("td", t.provider),
          h("td", h("div.chips", (t.placeholders || []).map((p) => h("span.field", p)))),
          h("td", { title: when(t.updatedAt) }, ago(t.updatedAt))))
          : h("tr", h("td.empty", { colSpan: 4 }, "No templates yet. Save one from Try a render.")))),
      h("div.pager", h("span", r.total ? `${offset + 1}–${offset + r.templates.length} of ${r.total}` : ""),
        h("div", h("button", { disabled: offset === 0, onclick: () => go(Math.max(0, offset - LIMIT)) }, "← Newer"),
          h("button", { disabled: offset + r.templates.length >= r.total, onclick: () => go(offset + LIMIT) }, "Older →")))));
}

// one shows a template: the form of its values with a Render button, and
// its composition to edit. kino keeps templates as they were made, so a
// saved edit is a new template, and the old one is deleted.
async function one(main, id, signal) {
  const t = await get("/api/templates/" + id, signal);
  const names = t.placeholders || [];
  const merge = h("form.form#merge", { onsubmit: (e) => { e.preventDefault(); run(); } },
    names.map((n) => [h("label", { for: "merge-" + n }, n), h("input", { type: "text", name: n, id: "merge-" + n, required: true, autocomplete: "off" })]));
  const go = h("button.primary#rendertemplate", { onclick: () => run() }, "Render");
  const result = h("div#result");
  const problems = h("div");
  const area = h("textarea.code#templatejson", { spellcheck: false, "aria-label": "the template (JSON)", rows: 22 },
    pretty({ name: t.name, provider: t.provider, composition: t.composition, assetUrls: t.assetUrls || {} }));
  const saveProblems = h("div");
  const save = h("button#savetemplate", { onclick: () => saveAs() }, "Save");
  const del = h("button.danger", { onclick: async () => {
    if (!confirm(`Delete ${t.name}? Renders made from it are kept.`)) return;
    try { await call("DELETE", "/api/templates/" + id); toast(`Deleted ${t.name}`); location.hash = "#/templates"; } catch (err) { saveProblems.replaceChildren(errorBox(err)); }
  } }, "Delete");
  const edit = h("button", { title: "Its composition, placeholders and all, in the render editor", onclick: () => {
    try { const v = JSON.parse(area.value); openInEditor({ provider: v.provider, composition: v.composition, assetUrls: v.assetUrls }); } catch (err) { saveProblems.replaceChildren(errorBox(err)); }
  } }, "Open in editor");

  main.append(
    h("div.head", h("div", h("p.sub", h("a", { href: "#/templates" }, "Templates"), " / ", t.provider), h("h1", t.name), h("div.id", t.id))),
    h("div.grid2",
      h("div.panel", h("div.toolbar", h("h2", "Template"), h("span.grow"), edit, del, save), saveProblems,
        h("div.editor.plain", area),
        h("p.note", "Saving keeps the edited template as a new one (a new id) and deletes this one; renders made from it are kept.")),
      h("div",
        h("div.panel", h("h2", "Render it"),
          names.length ? merge : h("p.note", "It has no {{NAME}} placeholders: it renders as it is."),
          h("div.toolbar", { style: "margin-top:10px" }, h("span.grow"), go), problems),
        h("div.panel", h("h2", "Result"), result))));

  async function run() {
    const values = Object.fromEntries(names.map((n) => [n, merge.elements[n].value]));
    go.disabled = true;
    problems.replaceChildren();
    try {
      const job = await call("POST", "/api/render", { template: id, merge: values });
      followRender(result, job.jobId, signal);
    } catch (err) {
      problems.replaceChildren(errorBox(err));
    } finally { go.disabled = false; }
  }

  async function saveAs() {
    let v;
    try { v = JSON.parse(area.value); } catch (err) { return saveProblems.replaceChildren(errorBox(err)); }
    save.disabled = true;
    try {
      const made = await call("POST", "/api/templates", v);
      await call("DELETE", "/api/templates/" + id).catch(() => {});
      toast(`Saved ${made.name}`);
      location.hash = "#/templates/" + made.id;
    } catch (err) {
      saveProblems.replaceChildren(err instanceof ApiError ? errorBox(err) : errorBox({ message: String(err) }));
      save.disabled = false;
    }
  }
}
