// render.js: try a render: a JSON editor seeded with the documented
// examples, errors shown at their JSON path, live progress, the result.
import { call, get, watch, ApiError } from "./api.js";
import { h, badge, progress, errorBox, player, terminal } from "./ui.js";
import { locate, lineOf, errorPaths } from "./jsonpath.js";

const draftKey = "kino.renderDraft";

export async function render(main, route, signal) {
  const examples = await get("/console/examples.json", signal).catch(() => []);
  const area = h("textarea.code", { spellcheck: false, "aria-label": "render request (JSON)", id: "request" });
  const gutter = h("div.gutter");
  const problems = h("div#problems");
  const result = h("div#result", h("p.note", "Submit the request: its progress and then its output show here."));
  const submit = h("button.primary#submit", { onclick: () => send() }, "Render");
  const pick = h("select#example", { onchange: () => load(examples[pick.value]?.request) },
    examples.map((e, i) => h("option", { value: i }, e.title)));

  const marks = new Set();
  const paintGutter = () => {
    const n = area.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: n }, (_, i) => marks.has(i + 1) ? h("b", i + 1 + "\n") : (i + 1) + "\n"));
    gutter.scrollTop = area.scrollTop;
  };
  area.addEventListener("input", () => { marks.clear(); paintGutter(); sessionStorage.setItem(draftKey, area.value); });
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  area.addEventListener("keydown", (e) => {
    if (e.key === "Tab") { e.preventDefault(); area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end"); }
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send();
  });
  const load = (req) => {
    if (!req) return;
    area.value = JSON.stringify(req, null, 2);
    marks.clear(); problems.replaceChildren(); paintGutter();
  };
  const format = () => { try { load(JSON.parse(area.value)); } catch (err) { showProblems([{ path: "", message: err.message }]); } };

  main.append(
    h("div.head", h("div", h("h1", "Try a render"), h("p.sub", "A render request as POST /api/render takes it. Start from an example of the composition guide."))),
    h("div.grid2",
      h("div.panel",
        h("div.toolbar", h("label.note", "Example ", pick), h("span.grow"), h("button", { onclick: format }, "Format"), submit),
        h("div.editor", gutter, area), problems,
        h("p.note", "Ctrl+Enter renders. Errors point at their JSON path; click one to select it.")),
      h("div.panel", h("h2", "Result"), result)));

  const draft = sessionStorage.getItem(draftKey);
  if (draft) { area.value = draft; paintGutter(); } else load(examples[0]?.request ?? { provider: "provider_a", composition: { width: 640, height: 360, fps: 25, layers: [] } });

  function showProblems(list) {
    marks.clear();
    problems.replaceChildren(...list.map((p) => {
      const at = p.path ? locate(area.value, p.path) : null;
      const line = at ? lineOf(area.value, at.span[0]) : p.line;
      if (line) marks.add(line);
      const box = h("div.error", { role: "alert", dataset: { path: p.path } },
        p.code ? h("b", p.code + " ") : null,
        p.path ? [h("span.path", p.path), ": "] : null, p.message, line ? h("span.note", ` (line ${line})`) : null);
      if (at) {
        box.style.cursor = "pointer";
        box.addEventListener("click", () => { area.focus(); area.setSelectionRange(at.span[0], at.span[1]); });
      }
      return box;
    }));
    paintGutter();
  }

  async function send() {
    let body;
    try { body = JSON.parse(area.value); } catch (err) {
      const m = /position (\d+)/.exec(err.message) || [];
      const lm = /line (\d+)/.exec(err.message);
      return showProblems([{ code: "INVALID_JSON", path: "", message: err.message, line: lm ? +lm[1] : m[1] ? lineOf(area.value, +m[1]) : undefined }]);
    }
    submit.disabled = true;
    problems.replaceChildren(); marks.clear(); paintGutter();
    try {
      const job = await call("POST", "/api/render", body);
      follow(job.jobId);
    } catch (err) {
      if (err instanceof ApiError && err.code === "VALIDATION_ERROR") showProblems(errorPaths(err.message).map((p) => ({ ...p, code: err.code })));
      else problems.replaceChildren(errorBox(err));
    } finally { submit.disabled = false; }
  }

  function follow(id) {
    const state = h("div.filters", badge("queued"), h("div", { style: "flex:1" }, progress(0, "queued")));
    const out = h("div");
    result.replaceChildren(h("p", "Job ", h("a.id#jobid", { href: `#/jobs/render/${id}` }, id)), state, h("div", { style: "margin-top:14px" }, out));
    let done = false;
    watch(`/api/render/${id}/events`, (j) => {
      state.replaceChildren(badge(j.status), h("div", { style: "flex:1" }, progress(j.progress, j.status)));
      if (j.status === "completed" && j.outputUrl && !done) {
        done = true;
        const p = player(j.outputUrl);
        const v = p.querySelector("video");
        if (v) { v.muted = true; v.autoplay = true; }
        out.replaceChildren(p, h("p.note", h("a", { href: j.outputUrl, target: "_blank", rel: "noopener" }, "Open the file")));
      } else if (j.status === "failed") out.replaceChildren(errorBox(j.error || {}));
      else if (terminal(j.status) && j.status !== "completed") out.replaceChildren(h("p.note", "The job was " + j.status + "."));
    }, signal).catch((err) => { if (err.name !== "AbortError") out.replaceChildren(errorBox(err)); });
  }
}
