// types.js: the job type catalogue, each type with its inputs, outputs and
// params schema.
import { get } from "./api.js";
import { h, pretty } from "./ui.js";

export async function render(main, route, signal) {
  const types = (await get("/jobs/types", signal)).data;
  const fields = (list) => h("div.fields", list.length ? list.map((f) =>
    h("span.field" + (f.required ? ".req" : ""), { title: (f.required ? "required · " : "") + (f.media || []).join(", ") },
      f.name + (f.media?.length ? `: ${f.media.join("|")}` : ""))) : h("span.note", "none"));
  main.append(
    h("div.head", h("div", h("h1", "Job types"), h("p.sub", "What POST /jobs and pipeline nodes can run. Required inputs are highlighted."))),
    h("div.types", types.map((t) => h("details.panel.type", { dataset: { type: t.type } },
      h("summary", h("span.tname", t.type), h("span.kind.media", t.tag), h("span.note", t.summary)),
      h("h3", "Inputs"), fields(t.inputs || []),
      h("h3", "Outputs"), fields(t.outputs || []),
      t.costModel ? [h("h3", "Cost"), h("p.note", t.costModel)] : null,
      h("h3", "Params schema"), h("pre.json", pretty(t.paramsSchema || {}))))));
}
