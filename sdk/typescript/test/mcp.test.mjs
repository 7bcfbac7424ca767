// kino mcp under a real MCP client, the official TypeScript SDK, over
// stdio: the tools listed, a render of the demo media to its URL, a
// preview as image content, a media job, resources, a tool error.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { startKino, kinoBin } from "./kino.mjs";

let k;
let client;
before(async () => {
  k = await startKino();
  const transport = new StdioClientTransport({
    command: kinoBin(),
    // The test's kino is on loopback, which the upload tool refuses unless told.
    args: ["mcp", "--addr", k.grpcAddr, "--api-key", k.apiKey, "--url", k.baseUrl, "--allow-private-networks"],
    stderr: "inherit",
  });
  client = new Client({ name: "kino-sdk-test", version: "1.0.0" });
  await client.connect(transport);
});
after(async () => {
  await client?.close();
  await k?.stop();
});

function request() {
  return {
    provider: "provider_a",
    assetUrls: { picture: `${k.baseUrl}/demo/picture2.jpg` },
    composition: {
      width: 320, height: 180, fps: 25,
      layers: [
        { type: "image", src: "picture", x: 0, y: 0, width: 320, height: 180, start: 0, duration: 3, kenBurns: "panRight" },
        { type: "text", text: "from an agent", fontSize: 24, color: "#ffffff", x: "center", y: "center", start: 0, duration: 3 },
      ],
    },
  };
}

function record(result) {
  assert.ok(!result.isError, JSON.stringify(result.content));
  const text = result.content.find((c) => c.type === "text");
  return JSON.parse(text.text);
}

test("the tools and their schemas", async () => {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of ["render", "preview", "render_get", "render_wait", "render_cancel", "render_list", "job_create", "job_get",
    "job_wait", "job_cancel", "job_list", "job_types", "mockup", "upload", "pipeline_run", "usage"]) {
    assert.ok(names.includes(want), `tool ${want} in ${names}`);
  }
  const render = tools.find((t) => t.name === "render");
  assert.equal(render.inputSchema.type, "object");
  assert.ok(render.inputSchema.properties.request);
  assert.deepEqual(render.inputSchema.required, ["request"]);
  assert.match(render.description, /\/demo\/talk\.mp4/);
});

test("render: a short video of the demo media, with progress, to its URL", async () => {
  const progress = [];
  const res = await client.callTool({ name: "render", arguments: { request: request() } }, undefined, {
    onprogress: (p) => progress.push(p), resetTimeoutOnProgress: true,
  });
  const rec = record(res);
  assert.equal(rec.status, "completed", JSON.stringify(rec));
  assert.match(rec.outputUrl, /^http:\/\/127\.0\.0\.1:\d+\/files\/renders\/.*\.mp4/);
  const out = await fetch(rec.outputUrl);
  assert.equal(out.status, 200);
  assert.equal(out.headers.get("content-type"), "video/mp4");
  // kino mcp sends the last notification before the answer, but the client
  // handles notifications a step later than answers, and one read with the
  // answer is dropped; those before it say how far the render was.
  assert.ok(progress.length >= 1, "progress notifications came");
  for (let i = 0; i < progress.length; i++) {
    assert.equal(progress[i].total, 100);
    assert.ok(i === 0 || progress[i].progress >= progress[i - 1].progress, JSON.stringify(progress));
  }

  // The same file, under a link signed afresh: its expiry is counted from
  // the moment of each read, so the query may differ by a second.
  const got = record(await client.callTool({ name: "render_get", arguments: { id: rec.jobId } }));
  assert.equal(new URL(got.outputUrl).pathname, new URL(rec.outputUrl).pathname);
  assert.equal((await fetch(got.outputUrl)).status, 200);
});

test("preview: the frame as image content", async () => {
  const res = await client.callTool({ name: "preview", arguments: { request: request(), time: 1, width: 160, format: "png" } });
  assert.ok(!res.isError, JSON.stringify(res.content));
  const img = res.content.find((c) => c.type === "image");
  assert.equal(img.mimeType, "image/png");
  const bytes = Buffer.from(img.data, "base64");
  assert.equal(bytes.subarray(1, 4).toString(), "PNG");
  assert.equal(bytes.readUInt32BE(16), 160, "the PNG is 160 pixels wide");
});

test("a media job: job_types, job_create waited for, job_get", async () => {
  const types = record(await client.callTool({ name: "job_types", arguments: {} }));
  assert.ok(types.data.some((t) => t.type === "audio.extract"));
  const progress = [];
  const job = record(await client.callTool({
    name: "job_create",
    arguments: { type: "audio.extract", inputs: { source: `${k.baseUrl}/demo/talk.mp4` }, params: { format: "mp3" } },
  }, undefined, { onprogress: (p) => progress.push(p) }));
  assert.equal(job.status, "complete", JSON.stringify(job));
  assert.match(job.outputUrl, /\.mp3/);
  assert.equal((await fetch(job.outputUrl)).status, 200);
  assert.ok(progress.length >= 1);
  assert.equal(record(await client.callTool({ name: "job_get", arguments: { id: job.id } })).status, "complete");

  const queued = record(await client.callTool({
    name: "job_create",
    arguments: { type: "video.transcode", inputs: { source: `${k.baseUrl}/demo/talk.mp4` }, params: { preset: "webm" }, wait: false },
  }));
  const cancelled = record(await client.callTool({ name: "job_cancel", arguments: { id: queued.id } }));
  assert.equal(cancelled.status, "cancelled");
});

test("upload from a URL, a mockup of the demo shirt, a pipeline run, usage", async () => {
  const up = record(await client.callTool({ name: "upload", arguments: { url: `${k.baseUrl}/demo/logo.png` } }));
  assert.equal(up.filename, "logo.png");
  assert.match(up.downloadUrl, /\/files\/uploads\//);

  const mock = record(await client.callTool({
    name: "mockup",
    arguments: { template: `${k.baseUrl}/demo/shirt.psd`, design: up.downloadUrl, smartObject: "Front/Design", params: { format: "png" } },
  }));
  assert.equal(mock.status, "complete", JSON.stringify(mock));
  assert.match(mock.outputUrl, /\.png/);

  const run = record(await client.callTool({
    name: "pipeline_run",
    arguments: {
      definition: { name: "resize twice", nodes: [{ id: "a", jobType: "image.resize", params: { width: 200 } }, { id: "b", jobType: "image.resize", params: { width: 100 } }],
        edges: [{ from: "a", to: "b", outputMapping: { sourceField: "outputUrl", targetField: "source" } }] },
      inputs: { a: { source: `${k.baseUrl}/demo/picture1.jpg` } },
    },
  }));
  assert.match(run.status, /^complete/, JSON.stringify(run));
  assert.equal(run.jobs.length, 2);

  const usage = record(await client.callTool({ name: "usage", arguments: {} }));
  assert.ok(usage.data.length >= 1);
});

test("resources: the composition guide and the job types", async () => {
  const { resources } = await client.listResources();
  assert.deepEqual(resources.map((r) => r.uri).sort(), ["kino://docs/compositions.md", "kino://job-types"]);
  const guide = await client.readResource({ uri: "kino://docs/compositions.md" });
  assert.match(guide.contents[0].text, /^# /);
  const types = JSON.parse((await client.readResource({ uri: "kino://job-types" })).contents[0].text);
  assert.ok(types.data.length > 5);
});

test("kino's errors are tool errors with its code and message", async () => {
  const res = await client.callTool({ name: "render_get", arguments: { id: "0199a1b2-0000-7000-8000-000000000000" } });
  assert.equal(res.isError, true);
  assert.match(res.content[0].text, /^JOB_NOT_FOUND: /);
  const bad = await client.callTool({ name: "render", arguments: { request: { provider: "provider_a", composition: { width: 0 } } } });
  assert.equal(bad.isError, true);
  assert.match(bad.content[0].text, /^VALIDATION_ERROR: /);
});

test("streamable HTTP with --http: the same tools", async () => {
  const { spawn } = await import("node:child_process");
  const { createInterface } = await import("node:readline");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const child = spawn(kinoBin(), ["mcp", "--http", "127.0.0.1:0", "--addr", k.grpcAddr, "--api-key", k.apiKey, "--url", k.baseUrl],
    { stdio: ["ignore", "ignore", "pipe"] });
  const exited = new Promise((res) => child.on("exit", res));
  try {
    const url = await new Promise((res, rej) => {
      createInterface({ input: child.stderr }).on("line", (line) => {
        const m = line.match(/streamable HTTP at (\S+)/);
        if (m) res(m[1]);
      });
      exited.then((code) => rej(new Error(`kino mcp exited (${code})`)));
    });
    const http = new Client({ name: "kino-sdk-test-http", version: "1.0.0" });
    await http.connect(new StreamableHTTPClientTransport(new URL(url)));
    const { tools } = await http.listTools();
    assert.ok(tools.some((t) => t.name === "render"));
    const res = await http.callTool({ name: "preview", arguments: { request: request(), time: 0.5, width: 64 } });
    assert.equal(res.content.find((c) => c.type === "image").mimeType, "image/jpeg");
    await http.close();
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
});
