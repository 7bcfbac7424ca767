// The SDK against a real kino: renders, previews, media jobs, uploads,
// a 429 with Retry-After, cancellation, typed errors.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Kino, KinoError } from "../dist/index.js";
import { startKino } from "./kino.mjs";

let k;
let kino;
before(async () => {
  k = await startKino();
  kino = new Kino({ baseUrl: k.baseUrl, apiKey: k.apiKey });
});
after(async () => {
  await k?.stop();
});

// A short render of the demo media kino serves itself.
function demoRender(seconds = 2) {
  return {
    provider: "provider_a",
    assetUrls: { picture: `${k.baseUrl}/demo/picture1.jpg`, logo: `${k.baseUrl}/demo/logo.png` },
    composition: {
      width: 320, height: 180, fps: 25, background: "#102030",
      layers: [
        { type: "image", src: "picture", x: 0, y: 0, width: 320, height: 180, start: 0, duration: seconds, kenBurns: "zoomIn" },
        { type: "image", src: "logo", x: 270, y: 10, width: 40, height: 40, start: 0, duration: seconds },
        { type: "text", text: "kino SDK", fontSize: 24, color: "#ffffff", x: "center", y: "center", start: 0, duration: seconds },
      ],
    },
  };
}

test("a render of the demo media: submit, wait with progress, record, list, request", async () => {
  const sub = await kino.renders.submit(demoRender(4));
  assert.equal(sub.status, "queued");
  assert.ok(sub.jobId);
  const seen = [];
  const done = await kino.renders.wait(sub.jobId, { onProgress: (r) => seen.push(r) });
  assert.equal(done.status, "completed", JSON.stringify(done));
  assert.equal(done.progress, 100);
  assert.ok(seen.length >= 2, `progress came as it changed: ${seen.map((r) => r.status)}`);
  assert.equal(seen.at(-1).status, "completed");
  for (let i = 1; i < seen.length; i++) assert.ok(seen[i].progress >= seen[i - 1].progress, "progress never goes back");

  const rec = await kino.renders.get(sub.jobId);
  assert.equal(rec.jobId, sub.jobId);
  assert.equal(rec.status, "completed");
  assert.match(rec.outputUrl, /\.mp4(\?|$)/);
  const out = await fetch(rec.outputUrl);
  assert.equal(out.status, 200);
  assert.ok((await out.arrayBuffer()).byteLength > 1000);

  // The events of an ended render: its last record, then the end.
  const events = [];
  for await (const r of kino.renders.events(sub.jobId)) events.push(r);
  assert.deepEqual(events.map((r) => r.status), ["completed"]);

  const page = await kino.renders.list({ status: "completed", limit: "10" });
  assert.ok(page.data.some((r) => r.jobId === sub.jobId));
  assert.ok(page.meta.total >= 1);
  const req = await kino.renders.request(sub.jobId);
  assert.equal(req.composition.width, 320);
});

test("a preview: the frame as a JPEG", async () => {
  const p = await kino.renders.preview({ ...demoRender(), time: 1, width: 160 });
  assert.equal(p.contentType, "image/jpeg");
  assert.deepEqual([...p.bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  const png = await kino.renders.preview({ ...demoRender(), time: 0.5, format: "png" });
  assert.equal(png.contentType, "image/png");
  assert.deepEqual([...png.bytes.subarray(1, 4)], [0x50, 0x4e, 0x47]);
});

test("a media job: create, wait with progress, record, list, types", async () => {
  const types = await kino.jobs.types();
  assert.ok(types.some((t) => t.type === "image.resize"));
  const job = await kino.jobs.create({
    type: "image.resize",
    inputs: { source: `${k.baseUrl}/demo/picture1.jpg` },
    params: { width: 160 },
  });
  assert.ok(job.id);
  const seen = [];
  const done = await kino.jobs.wait(job.id, { onProgress: (j) => seen.push(j.status) });
  assert.equal(done.status, "complete", JSON.stringify(done));
  assert.equal(seen.at(-1), "complete");
  assert.ok(done.outputUrl);
  assert.equal((await fetch(done.outputUrl)).status, 200);
  const got = await kino.jobs.get(job.id);
  assert.equal(got.status, "complete");
  const page = await kino.jobs.list({ type: "image.resize" });
  assert.ok(page.data.some((j) => j.id === job.id));
});

test("uploads: from a path, a Blob and a stream, then used as a job's input", async () => {
  const logo = new Uint8Array(await (await fetch(`${k.baseUrl}/demo/logo.png`)).arrayBuffer());
  const dir = mkdtempSync(join(tmpdir(), "kino-sdk-up-"));
  try {
    const path = join(dir, "logo.png");
    writeFileSync(path, logo);
    const fromPath = await kino.uploads.create(path);
    assert.equal(fromPath.filename, "logo.png");
    assert.equal(fromPath.size, logo.byteLength);
    assert.match(fromPath.downloadUrl, /^http:\/\/127\.0\.0\.1:\d+\/files\/uploads\//);

    const fromBlob = await kino.uploads.create(new Blob([logo], { type: "image/png" }), { filename: "blob.png" });
    assert.equal(fromBlob.size, logo.byteLength);
    const stream = new ReadableStream({ start(c) { c.enqueue(logo.subarray(0, 100)); c.enqueue(logo.subarray(100)); c.close(); } });
    const fromStream = await kino.uploads.create(stream, { filename: "stream.png" });
    assert.equal(fromStream.size, logo.byteLength);

    const job = await kino.jobs.create({ type: "image.resize", inputs: { source: fromStream.downloadUrl }, params: { width: 80 } });
    assert.equal((await kino.jobs.wait(job.id)).status, "complete");

    const asset = await kino.assets.upload(path, { type: "image", name: "logo" });
    assert.equal(asset.type, "image");
    assert.equal((await kino.assets.get(asset.id)).id, asset.id);
    assert.ok((await kino.assets.list({ type: "image" })).data.some((a) => a.id === asset.id));
    await kino.assets.delete(asset.id);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("cancel: a render and a media job that have not ended", async () => {
  const sub = await kino.renders.submit(demoRender(30));
  const c = await kino.renders.cancel(sub.jobId);
  assert.equal(c.status, "cancelled");
  assert.equal((await kino.renders.wait(sub.jobId)).status, "cancelled");
  await assert.rejects(kino.renders.cancel(sub.jobId), (e) => e instanceof KinoError && e.status === 400 && e.code === "JOB_NOT_CANCELLABLE");

  const job = await kino.jobs.create({
    type: "video.transcode",
    inputs: { source: `${k.baseUrl}/demo/talk.mp4` },
    params: { preset: "webm" },
  });
  const cj = await kino.jobs.cancel(job.id);
  assert.equal(cj.status, "cancelled");
  assert.equal((await kino.jobs.wait(job.id)).status, "cancelled");
});

test("errors are KinoErrors with kino's code", async () => {
  await assert.rejects(kino.renders.get("0199a1b2-0000-7000-8000-000000000000"), (e) =>
    e instanceof KinoError && e.status === 404 && e.code === "JOB_NOT_FOUND");
  await assert.rejects(kino.renders.submit({ provider: "provider_a", composition: { width: 0 } }), (e) =>
    e instanceof KinoError && e.status === 400 && e.code === "VALIDATION_ERROR" && e.message.length > 0);
  const noKey = new Kino({ baseUrl: k.baseUrl });
  await assert.rejects(noKey.jobs.list(), (e) => e instanceof KinoError && e.status === 401 && e.code === "UNAUTHENTICATED");
});

test("templates, pipelines, usage and the organisation", async () => {
  const t = await kino.templates.create({
    name: "card", provider: "unified",
    composition: { output: { width: 320, height: 180, fps: 25, duration: 1 },
      tracks: [{ clips: [{ asset: { type: "text", text: "Hi {{NAME}}", fontSize: 24 }, start: 0, length: 1 }] }] },
  });
  assert.deepEqual(t.placeholders, ["NAME"]);
  assert.equal((await kino.templates.get(t.id)).id, t.id);
  assert.ok((await kino.templates.list()).templates.some((x) => x.id === t.id));
  const fromTemplate = await kino.renders.submit({ template: t.id, merge: { NAME: "Ada" } });
  assert.equal((await kino.renders.wait(fromTemplate.jobId)).status, "completed");
  await kino.templates.delete(t.id);

  const p = await kino.pipelines.create({
    name: "resize twice",
    nodes: [
      { id: "a", jobType: "image.resize", params: { width: 200 } },
      { id: "b", jobType: "image.resize", params: { width: 100 } },
    ],
    edges: [{ from: "a", to: "b", outputMapping: { sourceField: "outputUrl", targetField: "source" } }],
  });
  assert.ok(p.id);
  const run = await kino.pipelines.run(p.id, { inputs: { a: { source: `${k.baseUrl}/demo/picture2.jpg` } } });
  const ended = await kino.pipelines.waitRun(p.id, run.id);
  assert.match(ended.status, /^complete/, JSON.stringify(ended));
  assert.ok((await kino.pipelines.listRuns(p.id)).data.some((r) => r.id === run.id));
  assert.ok((await kino.pipelines.list()).data.some((x) => x.id === p.id));

  const usage = await kino.usage();
  assert.ok(Array.isArray(usage.data));
  const org = await kino.org();
  assert.equal(org.org.id, "sdk");
});

test("a 429 with Retry-After: a KinoError without retries, waited out with them", async () => {
  const limited = await startKino(["--org-rate", "1"]);
  try {
    const statuses = [];
    const counting = async (url, init) => {
      const res = await fetch(url, init);
      statuses.push(res.status);
      return res;
    };
    const noRetry = new Kino({ baseUrl: limited.baseUrl, apiKey: limited.apiKey, maxRetries: 0 });
    const body = { type: "image.resize", inputs: { source: `${limited.baseUrl}/demo/picture1.jpg` }, params: { width: 64 } };
    let err;
    for (let i = 0; i < 5 && !err; i++) {
      await noRetry.jobs.create(body).catch((e) => { err = e; });
    }
    assert.ok(err instanceof KinoError, "a burst past --org-rate is refused");
    assert.equal(err.status, 429);
    assert.equal(err.code, "RATE_LIMITED");
    assert.ok(err.retryAfter >= 1, `retryAfter ${err.retryAfter}`);

    const retrying = new Kino({ baseUrl: limited.baseUrl, apiKey: limited.apiKey, fetch: counting });
    for (let i = 0; i < 3; i++) await retrying.jobs.create(body);
    assert.ok(statuses.includes(429), `a 429 was met and waited out: ${statuses}`);
    assert.equal(statuses.filter((s) => s < 300).length, 3);
  } finally {
    await limited.stop();
  }
});
