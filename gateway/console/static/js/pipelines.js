// pipelines.js: pipelines, their graph, their runs with every node's live
// status, and a form to start a run.
import { get, call, watch, qs } from "./api.js";
import { h, svg, badge, progress, when, ago, errorBox, terminal, tone, toast } from "./ui.js";

const starter = {
  name: "two sizes",
  description: "a picture resized twice, the second from the first",
  nodes: [
    { id: "small", jobType: "image.resize", params: { width: 320 } },
    { id: "smaller", jobType: "image.resize", params: { width: 160 } },
  ],
  edges: [{ from: "small", to: "smaller", outputMapping: { sourceField: "outputUrl", targetField: "source" } }],
};

export async function render(main, route, signal) {
  if (route.parts[0]) return pipeline(main, route.parts[0], signal);
  const offset = Number(route.query.get("offset")) || 0;
  const list = await get("/pipelines" + qs({ limit: 20, offset }), signal);
  const area = h("textarea.code", { spellcheck: false, style: "width:100%;min-height:300px", "aria-label": "pipeline (JSON)" });
  area.value = JSON.stringify(starter, null, 2);
  const problems = h("div");
  const create = h("button.primary", { onclick: async () => {
    problems.replaceChildren();
    let body;
    try { body = JSON.parse(area.value); } catch (err) { return problems.append(errorBox(err)); }
    try {
      const p = (await call("POST", "/pipelines", body)).data;
      location.hash = `#/pipelines/${p.id}`;
    } catch (err) {
      problems.append(...err.message.split("; ").map((m) => errorBox({ code: err.code, message: m })));
    }
  } }, "Create pipeline");

  main.append(
    h("div.head", h("div", h("h1", "Pipelines"), h("p.sub", "Graphs of media jobs: each node's output feeds the next."))),
    h("div.grid2",
      h("div.panel",
        h("table", h("thead", h("tr", ["Name", "Nodes", "Created"].map((t) => h("th", t)))),
          h("tbody", list.data.length ? list.data.map((p) => h("tr.row", { onclick: () => { location.hash = `#/pipelines/${p.id}`; } },
            h("td", h("a", { href: `#/pipelines/${p.id}` }, p.name), h("div.id", p.id)),
            h("td", p.nodes.map((n) => n.id).join(" → ")),
            h("td", { title: when(p.createdAt) }, ago(p.createdAt))))
            : h("tr", h("td.empty", { colSpan: 3 }, "No pipelines yet: create one.")))),
        h("div.pager", h("span", list.meta.total ? `${offset + 1}–${offset + list.data.length} of ${list.meta.total}` : ""),
          h("div", h("button", { disabled: offset === 0, onclick: () => { location.hash = `#/pipelines?offset=${Math.max(0, offset - 20)}`; } }, "← Newer"),
            h("button", { disabled: offset + list.data.length >= list.meta.total, onclick: () => { location.hash = `#/pipelines?offset=${offset + 20}`; } }, "Older →")))),
      h("div.panel", h("h2", "New pipeline"), h("p.note", "As POST /pipelines takes it; see the job types for each node's inputs, outputs and params."),
        area, problems, h("div.actions", create))));
}

async function pipeline(main, id, signal) {
  const [p, catalogue] = await Promise.all([get(`/pipelines/${id}`, signal).then((r) => r.data), get("/jobs/types", signal).then((r) => r.data)]);
  const types = Object.fromEntries(catalogue.map((t) => [t.type, t]));
  const graphBox = h("div.graph");
  const runsBody = h("tbody");
  const runForm = h("div");
  let selected = null; // the run the graph shows
  const streams = new Map();

  main.append(
    h("div.head", h("div", h("p.sub", h("a", { href: "#/pipelines" }, "Pipelines")), h("h1", p.name), p.description ? h("p.sub", p.description) : null,
      h("div.id", p.id))),
    h("div.panel", h("h2", "Graph"), graphBox),
    h("div.grid2",
      h("div.panel", h("h2", "Runs"), h("table.runs", h("thead", h("tr", ["Run", "Status", "Nodes", "Started"].map((t) => h("th", t)))), runsBody)),
      h("div.panel", h("h2", "Start a run"), runForm)));

  const draw = (run) => graphBox.replaceChildren(graph(p, run));
  draw(null);

  // The inputs a run needs are the node inputs no edge feeds.
  const fed = new Set(p.edges.map((e) => `${e.to}.${e.outputMapping?.targetField}`));
  const fields = p.nodes.flatMap((n) => (types[n.jobType]?.inputs || []).filter((f) => !fed.has(`${n.id}.${f.name}`)).map((f) => ({ node: n.id, ...f })));
  const inputs = fields.map((f) => h("input", { type: "text", name: `${f.node}.${f.name}`, placeholder: `URL or asset id (${(f.media || []).join(", ")})`, required: f.required }));
  const problems = h("div");
  const start = h("button.primary#startrun", { onclick: async () => {
    problems.replaceChildren();
    const body = { inputs: {} };
    fields.forEach((f, i) => {
      const v = inputs[i].value.trim();
      if (v) (body.inputs[f.node] ||= {})[f.name] = v;
    });
    start.disabled = true;
    try {
      const run = (await call("POST", `/pipelines/${id}/runs`, body)).data;
      toast("Run started");
      selected = run.id;
      await listRuns();
    } catch (err) {
      problems.append(...err.message.split("; ").map((m) => errorBox({ code: err.code, message: m })));
    } finally { start.disabled = false; }
  } }, "Start run");
  runForm.append(
    fields.length ? h("div.form", fields.map((f, i) => [h("label", { for: inputs[i].name }, `${f.node}.${f.name}${f.required ? " *" : ""}`), inputs[i]])) : h("p.note", "This pipeline needs no inputs."),
    problems, h("div.actions", start));

  function runRow(run) {
    const byNode = Object.fromEntries(run.jobs.map((j) => [j.pipelineNodeId, j]));
    return h("tr.row" + (run.id === selected ? ".on" : ""), { dataset: { run: run.id, status: run.status }, onclick: () => { selected = run.id; draw(run); paint(); } },
      h("td.id", run.id.slice(0, 13) + "…"),
      h("td", badge(run.status)),
      h("td", h("div.chips", p.nodes.map((n) => {
        const j = byNode[n.id];
        return j ? h("a", { href: `#/jobs/media/${j.id}`, onclick: (e) => e.stopPropagation(), title: j.status, dataset: { node: n.id, status: j.status } },
          h("span.badge." + tone(j.status), n.id + (j.status === "running" ? ` ${Math.round(j.progress || 0)}%` : ""))) : null;
      }))),
      h("td", { title: when(run.createdAt) }, ago(run.createdAt)));
  }

  let runs = [];
  function paint() {
    runsBody.replaceChildren(...(runs.length ? runs.map(runRow) : [h("tr", h("td.empty", { colSpan: 4 }, "No runs yet."))]));
    const run = runs.find((r) => r.id === selected);
    if (run) draw(run);
  }

  async function listRuns() {
    runs = (await get(`/pipelines/${id}/runs` + qs({ limit: 10 }), signal)).data;
    if (!selected && runs[0]) selected = runs[0].id;
    paint();
    // Each active run is followed live; a run's stream ends when it does.
    for (const run of runs) {
      if (terminal(run.status) || streams.has(run.id)) continue;
      streams.set(run.id, true);
      watch(`/pipelines/${id}/runs/${run.id}/events`, (r) => {
        const i = runs.findIndex((x) => x.id === r.id);
        if (i >= 0) runs[i] = r;
        paint();
      }, signal).catch(() => {}).finally(() => streams.delete(run.id));
    }
  }
  await listRuns();
}

// graph draws the pipeline left to right: a node's column is its longest
// path from a source; coloured by the run's job statuses when one is given.
function graph(p, run) {
  const W = 190, H = 66, GX = 160, GY = 26, PAD = 20;
  const level = {};
  const incoming = (id) => p.edges.filter((e) => e.to === id);
  const depth = (id, seen = new Set()) => {
    if (level[id] !== undefined) return level[id];
    if (seen.has(id)) return 0;
    seen.add(id);
    return (level[id] = Math.max(0, ...incoming(id).map((e) => depth(e.from, seen) + 1)));
  };
  p.nodes.forEach((n) => depth(n.id));
  const columns = [];
  p.nodes.forEach((n) => (columns[level[n.id]] ||= []).push(n.id));
  const pos = {};
  const tallest = Math.max(...columns.map((c) => c.length));
  columns.forEach((col, x) => col.forEach((id, y) => {
    const offset = (tallest - col.length) * (H + GY) / 2;
    pos[id] = { x: PAD + x * (W + GX), y: PAD + offset + y * (H + GY) };
  }));
  const width = PAD * 2 + columns.length * W + (columns.length - 1) * GX;
  const height = PAD * 2 + tallest * H + (tallest - 1) * GY;
  const jobs = Object.fromEntries((run?.jobs || []).map((j) => [j.pipelineNodeId, j]));

  // Edges between the same two nodes are drawn once, with every mapping.
  const pairs = new Map();
  for (const e of p.edges) {
    const k = e.from + "→" + e.to;
    pairs.set(k, [...(pairs.get(k) || []), `${e.outputMapping?.sourceField}→${e.outputMapping?.targetField}`]);
  }
  const s = svg("svg", { width, height, viewBox: `0 0 ${width} ${height}`, role: "img", "aria-label": "pipeline graph" },
    svg("defs", {}, svg("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
      svg("path", { d: "M 0 0 L 10 5 L 0 10 z", fill: "#94a3b8" }))));
  for (const [k, labels] of pairs) {
    const [from, to] = k.split("→");
    const a = pos[from], b = pos[to];
    if (!a || !b) continue;
    const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x - 2, y2 = b.y + H / 2, mx = (x1 + x2) / 2;
    s.append(svg("path", { class: "edge", d: `M ${x1} ${y1} C ${mx} ${y1}, ${mx} ${y2}, ${x2} ${y2}`, "marker-end": "url(#arrow)" }));
    labels.forEach((l, i) => s.append(svg("text", { class: "elabel", x: mx, y: (y1 + y2) / 2 - 6 - i * 12, "text-anchor": "middle" }, l)));
  }
  for (const n of p.nodes) {
    const { x, y } = pos[n.id];
    const j = jobs[n.id];
    const st = j ? j.status + (j.status === "running" ? ` · ${Math.round(j.progress || 0)}%` : "") : "";
    const g = svg("g", { class: "node " + (j ? tone(j.status) : ""), transform: `translate(${x},${y})`, "data-node": n.id, "data-status": j?.status || "" },
      svg("rect", { width: W, height: H, rx: 8 }),
      svg("text", { class: "nid", x: 12, y: 22 }, n.id),
      svg("text", { class: "ntype", x: 12, y: 40 }, n.jobType),
      svg("text", { class: "nstat", x: 12, y: 56 }, st));
    if (j && j.status === "running") g.append(svg("rect", { x: 0, y: H - 4, width: W * (j.progress || 0) / 100, height: 4, rx: 2, fill: "#2563eb" }));
    s.append(g);
  }
  return s;
}
