// render.js: try a render: a JSON editor seeded with the documented
// examples, a preview of the frame at the playhead, a timeline of the
// layers (or tracks) and a form of the selected one's properties, errors
// beside the Render button and at their line, live progress, the result.
import { call, get, watch, ApiError } from "./api.js";
import { h, badge, progress, errorBox, player, terminal } from "./ui.js";
import { locate, lineOf, errorPaths, spans } from "./jsonpath.js";
import { model, setKey, Timeline, Preview, Props } from "./studio.js";

const draftKey = "kino.renderDraft";
const demoOrigin = "http://localhost:8080"; // gateway/console.DemoOrigin

// openInEditor makes req the editor's draft and shows the editor.
export function openInEditor(req) {
  sessionStorage.setItem(draftKey, JSON.stringify(req, null, 2));
  location.hash = "#/render";
}

export async function render(main, route, signal) {
  // The examples name kino's demo media at the README's address; this
  // page's own origin is the node's, which reads them from its binary.
  const examples = await get("/console/examples.json", signal).then((list) => list.map((e) => ({ ...e,
    request: JSON.parse(JSON.stringify(e.request).replaceAll(demoOrigin + "/demo/", location.origin + "/demo/")) })), () => []);
  const area = h("textarea.code", { spellcheck: false, "aria-label": "render request (JSON)", id: "request" });
  const gutter = h("div.gutter");
  const problems = h("div#problems");
  const result = h("div#result", h("p.note", "Submit the request: its progress and then its output show here."));
  const submit = h("button.primary#submit", { onclick: () => send() }, "Render");
  const pick = h("select#example", { onchange: () => { load(examples[pick.value]?.request); selectPath(""); } },
    examples.map((e, i) => h("option", { value: i }, e.title)));
  // A request the preview is refused for has its lines marked as it is
  // typed, before Render is pressed.
  const previewMarks = new Set();
  const preview = new Preview(signal, (err) => {
    previewMarks.clear();
    if (err instanceof ApiError && err.code === "VALIDATION_ERROR") {
      for (const p of errorPaths(err.message)) {
        const at = p.path ? locate(area.value, p.path) : null;
        if (at) previewMarks.add(lineOf(area.value, at.span[0]));
      }
    }
    paintGutter();
  });
  const clock = h("span.note#clock");
  const props = new Props((path, key, v) => change(path, key, v));
  const timeline = new Timeline({
    onSeek: (t) => { clock.textContent = t.toFixed(2) + " s"; ask(); },
    onSelect: (path) => selectPath(path),
    onChange: (path, key, v) => change(path, key, v),
  });

  let req = null, m = null, selected = "", parseTimer;
  const marks = new Set();
  let selLines = [0, 0];
  const paintGutter = () => {
    const n = area.value.split("\n").length;
    gutter.replaceChildren(...Array.from({ length: n }, (_, i) => {
      const l = i + 1;
      if (marks.has(l) || previewMarks.has(l)) return h("b", l + "\n");
      return l >= selLines[0] && l <= selLines[1] ? h("i", l + "\n") : l + "\n";
    }));
    gutter.scrollTop = area.scrollTop;
  };
  area.addEventListener("input", () => {
    marks.clear(); paintGutter(); sessionStorage.setItem(draftKey, area.value);
    clearTimeout(parseTimer);
    parseTimer = setTimeout(reparse, 150);
  });
  area.addEventListener("scroll", () => { gutter.scrollTop = area.scrollTop; });
  area.addEventListener("keydown", (e) => {
    if (e.key === "Tab") { e.preventDefault(); area.setRangeText("  ", area.selectionStart, area.selectionEnd, "end"); }
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) send();
  });
  // The cursor in a layer (or clip) of the JSON selects it.
  const follow = () => {
    if (!m) return;
    let map;
    try { map = spans(area.value); } catch { return; }
    const at = area.selectionStart;
    const hit = m.items.find((it) => { const s = map.get(it.path); return s && s[0] <= at && at <= s[1]; });
    if (hit && hit.path !== selected) selectPath(hit.path, true);
  };
  area.addEventListener("click", follow);
  area.addEventListener("keyup", follow);

  const load = (r) => {
    if (!r) return;
    area.value = JSON.stringify(r, null, 2);
    sessionStorage.setItem(draftKey, area.value);
    marks.clear(); problems.replaceChildren(); reparse();
  };
  const format = () => { try { load(JSON.parse(area.value)); } catch (err) { showProblems([{ path: "", message: err.message }]); } };

  main.append(
    h("div.head", h("div", h("h1", "Try a render"), h("p.sub", "A render request as POST /api/render takes it. Start from an example of the composition guide; scrub the timeline to see any frame."))),
    h("div.panel.actionbar",
      h("div.toolbar", h("label.note", "Example ", pick), h("span.grow"), h("button", { onclick: format }, "Format"), h("button#savetemplate", { onclick: () => saveTemplate() }, "Save as template"), submit),
      problems),
    h("div.studio",
      h("div.panel.code", h("div.editor", gutter, area),
        h("p.note", "Ctrl+Enter renders. Errors point at their JSON path; click one to select it.")),
      h("div",
        h("div.panel", h("div.toolbar", h("h2", "Preview"), h("span.grow"), clock), preview.el, timeline.el),
        h("div.panel", h("h2", "Properties"), props.el),
        h("div.panel", h("h2", "Result"), result))));

  const draft = sessionStorage.getItem(draftKey);
  if (draft) { area.value = draft; reparse(); } else load(examples[0]?.request ?? { provider: "provider_a", composition: { width: 640, height: 360, fps: 25, layers: [] } });

  function reparse() {
    try { req = JSON.parse(area.value); } catch { req = null; }
    m = model(req);
    timeline.draw(m);
    if (m && !m.items.some((it) => it.path === selected)) selected = "";
    timeline.select(selected);
    props.show(m, selected);
    paintSelection();
    ask();
  }

  // ask shows the frame at the playhead of the request as it is now.
  function ask() {
    if (!m) return;
    const box = preview.el.clientWidth || 480;
    const width = m.width ? Math.min(m.width, Math.round(box * (window.devicePixelRatio || 1))) : 0;
    preview.want(req, timeline.time, width > 0 ? width - (width % 2) : 0);
  }

  function selectPath(path, fromText = false) {
    selected = path;
    timeline.select(path);
    props.show(m, path);
    paintSelection(!fromText);
  }

  // paintSelection marks the selected object's lines, and with select
  // also selects its text and scrolls it into view.
  function paintSelection(select = false) {
    const at = selected ? locate(area.value, selected) : null;
    selLines = at && at.path === selected ? [lineOf(area.value, at.span[0]), lineOf(area.value, at.span[1])] : [0, 0];
    if (at && select) {
      area.setSelectionRange(at.span[0], at.span[1]);
      scrollTo(selLines[0]);
    }
    paintGutter();
  }

  function scrollTo(line) {
    const lh = parseFloat(getComputedStyle(area).lineHeight) || 18;
    area.scrollTop = Math.max(0, (line - 3) * lh);
    gutter.scrollTop = area.scrollTop;
  }

  // change sets one property of the object at path (the format's name for
  // key) and writes the request back as JSON.
  function change(path, key, v) {
    const it = m && m.items.find((i) => i.path === path);
    if (!it) return;
    setKey(it.obj, m.names[key], v);
    const top = area.scrollTop;
    area.value = JSON.stringify(req, null, 2);
    sessionStorage.setItem(draftKey, area.value);
    marks.clear();
    m = model(req);
    timeline.draw(m);
    timeline.select(selected);
    props.show(m, selected);
    area.scrollTop = top;
    paintSelection(false);
    ask();
  }

  // saveTemplate keeps the request's composition as a stored template,
  // whose {{NAME}} placeholders a render fills in.
  async function saveTemplate() {
    let body;
    try { body = JSON.parse(area.value); } catch (err) { return showProblems([{ code: "INVALID_JSON", path: "", message: err.message }]); }
    const name = prompt("The template's name");
    if (!name) return;
    try {
      const t = await call("POST", "/api/templates", { name, provider: body.provider, composition: body.composition, assetUrls: body.assetUrls });
      location.hash = "#/templates/" + t.id;
    } catch (err) {
      if (err instanceof ApiError && err.code === "VALIDATION_ERROR") showProblems(errorPaths(err.message).map((p) => ({ ...p, code: err.code })));
      else problems.replaceChildren(errorBox(err));
    }
  }

  function showProblems(list) {
    marks.clear();
    problems.replaceChildren(...list.map((p) => {
      const at = p.path ? locate(area.value, p.path) : null;
      const line = at ? lineOf(area.value, at.span[0]) : p.line;
      if (line) marks.add(line);
      const box = h("div.error", { role: "alert", dataset: { path: p.path } },
        p.code ? h("b", p.code + " ") : null,
        p.path ? [h("span.path", p.path), ": "] : null, p.message, line ? h("span.note", ` (line ${line})`) : null);
      if (at || line) {
        box.style.cursor = "pointer";
        box.addEventListener("click", () => {
          area.focus();
          if (at) area.setSelectionRange(at.span[0], at.span[1]);
          scrollTo(line);
        });
      }
      return box;
    }));
    paintGutter();
    if (marks.size) scrollTo(Math.min(...marks));
    result.replaceChildren(h("p.note", `Not rendered: ${list.length === 1 ? "a problem" : list.length + " problems"} in the request, shown beside the Render button and marked at ${marks.size === 1 ? "its line" : "their lines"}.`));
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
      followRender(result, job.jobId, signal);
    } catch (err) {
      if (err instanceof ApiError && err.code === "VALIDATION_ERROR") showProblems(errorPaths(err.message).map((p) => ({ ...p, code: err.code })));
      else {
        problems.replaceChildren(errorBox(err));
        result.replaceChildren(h("p.note", "Not rendered: see the error beside the Render button."));
      }
    } finally { submit.disabled = false; }
  }
}

// followRender shows a render's live progress in box, then its output.
export function followRender(box, id, signal) {
  const state = h("div.filters", badge("queued"), h("div", { style: "flex:1" }, progress(0, "queued")));
  const out = h("div");
  box.replaceChildren(h("p", "Job ", h("a.id#jobid", { href: `#/jobs/render/${id}` }, id)), state, h("div", { style: "margin-top:14px" }, out));
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
