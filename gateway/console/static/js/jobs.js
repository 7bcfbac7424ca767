// jobs.js: render jobs and media jobs in one list, and one job's page.
import { get, call, watch, qs } from "./api.js";
import { h, badge, progress, when, ago, ms, errorBox, player, pretty, terminal, toast } from "./ui.js";
import { openInEditor } from "./render.js";

const PAGE = 20;

// Each filter status is one or more statuses of each API.
const statuses = {
  "": { render: [""], media: [""] },
  queued: { render: ["queued"], media: ["waiting", "dispatched"] },
  running: { render: ["processing"], media: ["running"] },
  completed: { render: ["completed"], media: ["complete"] },
  failed: { render: ["failed"], media: ["failed"] },
  cancelled: { render: ["cancelled"], media: ["cancelled"] },
};

function sources(f) {
  const st = statuses[f.status] || statuses[""];
  const out = [];
  if ((f.kind === "" || f.kind === "render") && !f.type) for (const s of st.render) out.push({ kind: "render", path: "/api/render", params: { status: s } });
  if (f.kind === "" || f.kind === "media") for (const s of st.media) out.push({ kind: "media", path: "/jobs", params: { status: s, type: f.type } });
  return out;
}

function row(kind, j) {
  return kind === "render"
    ? { kind, id: j.jobId, type: "render", status: j.status, progress: j.progress, created: Date.parse(j.createdAt), job: j }
    : { kind, id: j.id, type: j.type, status: j.status, progress: j.progress, created: j.createdAt, job: j };
}

// page fetches one merged page: each source from its own offset, newest
// first across them, and the offsets the next page starts from.
async function page(srcs, offsets, signal) {
  const lists = await Promise.all(srcs.map((s, i) =>
    get(s.path + qs({ ...s.params, limit: PAGE, offset: offsets[i] }), signal)));
  const merged = lists.flatMap((l, i) => l.data.map((j) => ({ ...row(srcs[i].kind, j), src: i })))
    .sort((a, b) => b.created - a.created || (b.id > a.id ? 1 : -1))
    .slice(0, PAGE);
  const next = offsets.map((o, i) => o + merged.filter((r) => r.src === i).length);
  const total = lists.reduce((n, l) => n + l.meta.total, 0);
  return { rows: merged, next, total };
}

export async function render(main, route, signal) {
  if (route.parts.length === 2) return job(main, route.parts[0], route.parts[1], signal);
  const f = { kind: route.query.get("kind") || "", status: route.query.get("status") || "", type: route.query.get("type") || "" };
  const types = await get("/jobs/types", signal).then((r) => r.data.map((t) => t.type), () => []);

  const setFilter = (k, v) => {
    const q = new URLSearchParams({ ...f, [k]: v });
    if (k === "type" && v) q.set("kind", "media");
    for (const [key, val] of [...q]) if (!val) q.delete(key);
    location.hash = "#/jobs" + (q.toString() ? "?" + q : "");
  };
  const select = (name, value, options) => h("label", name,
    h("select", { name, onchange: (e) => setFilter(name, e.target.value) },
      options.map(([v, label]) => h("option", { value: v, selected: v === value }, label))));

  const tbody = h("tbody");
  const pager = h("div.pager");
  main.append(
    h("div.head", h("div", h("h1", "Jobs"), h("p.sub", "Render jobs and media jobs, newest first.")),
      h("div.filters",
        select("kind", f.kind, [["", "All kinds"], ["render", "Render"], ["media", "Media"]]),
        select("type", f.type, [["", "All types"], ...types.map((t) => [t, t])]),
        select("status", f.status, [["", "Any status"], ["queued", "Queued"], ["running", "Running"], ["completed", "Completed"], ["failed", "Failed"], ["cancelled", "Cancelled"]]))),
    h("div.panel", h("table.jobs", h("thead", h("tr", ["Kind", "Job", "Type", "Status", "Progress", "Created"].map((t) => h("th", t)))), tbody), pager));

  const srcs = sources(f);
  const history = [srcs.map(() => 0)];
  let timer;
  signal.addEventListener("abort", () => clearTimeout(timer));

  const show = async () => {
    clearTimeout(timer);
    const offsets = history[history.length - 1];
    const p = await page(srcs, offsets, signal);
    tbody.replaceChildren(...p.rows.map((r) => h("tr.row", { dataset: { id: r.id, kind: r.kind }, onclick: () => { location.hash = `#/jobs/${r.kind}/${r.id}`; } },
      h("td", h("span.kind." + r.kind, r.kind)),
      h("td", h("a.id", { href: `#/jobs/${r.kind}/${r.id}` }, r.id)),
      h("td", r.type),
      h("td", badge(r.status)),
      h("td", progress(r.progress, r.status)),
      h("td", { title: when(r.created) }, ago(r.created)))));
    if (!p.rows.length) tbody.append(h("tr", h("td.empty", { colSpan: 6 }, "No jobs match. Try a render to make one.")));
    const first = offsets.reduce((a, b) => a + b, 0);
    pager.replaceChildren(
      h("span", p.total ? `${first + 1}–${first + p.rows.length} of ${p.total}` : ""),
      h("div",
        h("button", { disabled: history.length < 2, onclick: () => { history.pop(); show(); } }, "← Newer"),
        h("button", { disabled: first + p.rows.length >= p.total, onclick: () => { history.push(p.next); show(); } }, "Older →")));
    // Live progress: the page refreshes while a job on it is active (one
    // stream a row would use up the browser's connections to kino).
    if (p.rows.some((r) => !terminal(r.status))) timer = setTimeout(() => show().catch(() => {}), 1500);
  };
  await show();
}

async function job(main, kind, id, signal) {
  const isRender = kind === "render";
  const path = isRender ? `/api/render/${id}` : `/jobs/${id}`;
  const first = isRender ? await get(path, signal) : (await get(path, signal)).data;

  const status = h("span");
  const bar = h("div", { style: "min-width:240px" });
  const cancel = h("button.danger", { onclick: async () => {
    cancel.disabled = true;
    try {
      const r = isRender ? await call("DELETE", path) : (await call("POST", path + "/cancel")).data;
      update(isRender ? { ...last, status: r.status } : r);
      toast("Cancelled");
    } catch (err) { main.append(errorBox(err)); cancel.disabled = false; }
  } }, "Cancel");
  // A render's request comes back from kino (GET /api/render/{id}/request).
  const reopen = isRender ? h("button#openeditor", { onclick: async () => {
    reopen.disabled = true;
    try { openInEditor(await get(path + "/request", signal)); } catch (err) { main.append(errorBox(err)); reopen.disabled = false; }
  } }, "Open in editor") : null;
  const facts = h("dl.kv");
  const out = h("div");
  const details = h("div");
  const logBox = h("div");
  let last = first, shownOutput = false;

  main.append(
    h("div.head",
      h("div", h("p.sub", h("a", { href: "#/jobs" }, "Jobs"), " / ", isRender ? "render" : first.type),
        h("h1.id", { style: "font-size:18px;color:inherit" }, id)),
      h("div.filters", status, bar, cancel, reopen)),
    h("div.grid2", h("div", h("div.panel", h("h2", "Output"), out), logBox), h("div", h("div.panel", h("h2", "Timings"), facts), details)));

  function update(j) {
    last = j;
    status.replaceChildren(badge(j.status));
    bar.replaceChildren(progress(j.progress, j.status));
    cancel.hidden = terminal(j.status);
    facts.replaceChildren(...(isRender ? renderFacts(j) : mediaFacts(j)).flatMap(([k, v]) => [h("dt", k), h("dd", v)]));
    if (j.status === "failed" || j.errorCode) {
      out.replaceChildren(errorBox(isRender ? j.error || {} : { code: j.errorCode, message: j.errorMessage || "" }));
    } else if (j.outputUrl && !shownOutput) {
      shownOutput = true;
      let type = "";
      try { type = JSON.parse(j.outputMeta || "{}").contentType || ""; } catch { /* no type */ }
      out.replaceChildren(player(j.outputUrl, type), h("p.note", h("a", { href: j.outputUrl, target: "_blank", rel: "noopener" }, j.outputUrl)));
    } else if (!j.outputUrl) {
      out.replaceChildren(h("p.note", terminal(j.status) ? "No output." : "The output plays here when the job completes."));
    }
    if (!isRender && terminal(j.status)) mediaDetails(details, logBox, j, signal);
  }
  update(first);
  if (!isRender) mediaDetails(details, logBox, first, signal);
  if (!terminal(first.status)) {
    watch(path + "/events", (j) => update(j), signal).catch((err) => {
      if (err.name !== "AbortError") main.append(errorBox(err));
    });
  }
}

function renderFacts(j) {
  const f = [["Status", j.status], ["Created", when(j.createdAt)], ["Updated", when(j.updatedAt)]];
  if (terminal(j.status)) f.push(["Took", ms(Date.parse(j.updatedAt) - Date.parse(j.createdAt))]);
  if (j.posterUrl) f.push(["Poster", h("a", { href: j.posterUrl, target: "_blank" }, "picture")]);
  if (j.thumbnailUrl) f.push(["Thumbnail", h("a", { href: j.thumbnailUrl, target: "_blank" }, "picture")]);
  if (j.webhookDelivery) f.push(["Webhook", `${j.webhookDelivery.status} after ${j.webhookDelivery.attempts} attempt(s)`]);
  return f;
}

// inProcess says whether kino draws a job's type itself (a mockup is
// composited in Go), so that its time is not ffmpeg's.
function inProcess(j) {
  return j.type === "mockup.render";
}

function mediaFacts(j) {
  const f = [["Type", j.type], ["Created", when(j.createdAt)], ["Dispatched", when(j.dispatchedAt)], ["Started", when(j.startedAt)], ["Completed", when(j.completedAt)],
    ["Queue wait", ms(j.queueWaitMs)], ["Download", ms(j.execDownloadMs)], [inProcess(j) ? "Drawing (in kino)" : "ffmpeg", ms(j.execExecuteMs)], ["Upload", ms(j.execUploadMs)], ["Total", ms(j.consumerTotalMs)],
    ["Retries", j.retryCount ?? 0]];
  if (j.price !== undefined) f.push(["Price", "$" + j.price.toFixed(4)]);
  if (j.pipelineId) f.push(["Pipeline", h("a", { href: `#/pipelines/${j.pipelineId}` }, `${j.pipelineId} · ${j.pipelineNodeId}`)]);
  return f;
}

// mediaDetails shows inputs, params, the output's description and the
// ffmpeg log, again only when the status changed.
async function mediaDetails(box, logBox, j, signal) {
  if (box.dataset.shown === j.status) return;
  box.dataset.shown = j.status;
  const sections = [["Inputs", j.inputs], ["Params", j.params], ["Output description", j.outputMeta]].filter(([, v]) => v)
    .map(([k, v]) => h("div.panel", h("h2", k), h("pre.json", pretty(v))));
  const log = h("div.panel.log", h("h2", "ffmpeg log"));
  box.replaceChildren(...sections);
  logBox.replaceChildren(log);
  if (!j.logsRef) {
    const none = inProcess(j) ? "No ffmpeg ran: kino draws this job in its own process, so there is no ffmpeg log." : "No log was kept.";
    return log.append(h("p.note", terminal(j.status) ? none : "The log appears when the job ends."));
  }
  try {
    const res = await fetch(j.logsRef, { signal });
    if (!res.ok) throw new Error(res.statusText);
    log.append(h("pre.log", (await res.text()) || "(empty)"));
  } catch {
    log.append(h("p", h("a", { href: j.logsRef, target: "_blank", rel: "noopener" }, "Open the log")));
  }
}
