// kino's client for Node 20+ and browsers: plain fetch, no dependencies.
// The wire types are generated from kino's OpenAPI document (./openapi.ts);
// this file adds what a caller should not write by hand: errors with kino's
// code, retries of 429 and 503 after Retry-After, waiting on a job with its
// progress, Server-Sent Events as an async iterator, uploads.

import type { components, operations } from "./openapi.js";

export type { components, operations, paths } from "./openapi.js";

type Schemas = components["schemas"];
type Query<Op extends keyof operations> = operations[Op] extends { parameters: { query?: infer Q } }
  ? NonNullable<Q>
  : never;

/** A render's status record (GET /api/render/{id}). */
export type RenderJob = Schemas["RenderJob"];
/** The body of POST /api/render. */
export type RenderRequest = Schemas["SubmitRenderRequest"];
/** The answer of POST /api/render: the new job's id. */
export type RenderSubmitted = Schemas["SubmitRenderResponse"];
/** The body of POST /api/render/preview: a render request with a time. */
export type PreviewRequest = Schemas["PreviewRenderRequest"];
/** A media job's record (GET /jobs/{id}). */
export type Job = Schemas["Job"];
/** The body of POST /jobs. */
export type JobRequest = Schemas["CreateJobRequest"];
/** One entry of the job type catalogue (GET /jobs/types). */
export type JobType = Schemas["JobType"];
/** A stored asset (POST /assets). */
export type Asset = Schemas["Asset"];
/** A stored render template (POST /api/templates). */
export type Template = Schemas["Template"];
/** The body of POST /api/templates. */
export type TemplateRequest = Schemas["CreateTemplateRequest"];
/** A pipeline (POST /pipelines). */
export type Pipeline = Schemas["Pipeline"];
/** The body of POST /pipelines. */
export type PipelineRequest = Schemas["CreatePipelineRequest"];
/** A pipeline's run, with each node's job. */
export type PipelineRun = Schemas["PipelineRun"];
/** The body of POST /pipelines/{id}/runs. */
export type RunRequest = Schemas["RunPipelineBody"];
/** GET /usage: rows by day and type, and the totals. */
export type Usage = Schemas["GetUsageResponse"];
/** GET /orgs/current. */
export type CurrentOrg = Schemas["CurrentOrg"];

/** A list page of the media interface and of renders: {data, meta}. */
export interface Page<T, M = Schemas["JobListMeta"]> {
  data: T[];
  meta: M;
}

/**
 * A file kept for a while by POST /uploads. That path is served beside the
 * gRPC mapping, so it is not in the generated types.
 */
export interface Upload {
  id: string;
  filename: string;
  size: number;
  contentType: string;
  /** A signed URL kino reads as a source without a download. */
  downloadUrl: string;
  /** Epoch milliseconds. */
  expiresAt: number;
}

/** One frame of a render as a picture (POST /api/render/preview). */
export interface Preview {
  contentType: string;
  bytes: Uint8Array;
}

/** Every failure kino answers: its code and message, and the HTTP status. */
export class KinoError extends Error {
  /** kino's code, e.g. VALIDATION_ERROR, RATE_LIMITED; NETWORK_ERROR when no answer came. */
  readonly code: string;
  /** The HTTP status, 0 when no answer came. */
  readonly status: number;
  /** Seconds to wait before trying again, from Retry-After. */
  readonly retryAfter?: number;
  /** Each problem of a request with several: {field, message}. */
  readonly details?: { field?: string; message?: string }[];

  constructor(
    code: string,
    message: string,
    status: number,
    retryAfter?: number,
    details?: { field?: string; message?: string }[],
  ) {
    super(message);
    this.name = "KinoError";
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
    this.details = details;
  }
}

/** How a Kino client reaches kino. */
export interface KinoOptions {
  /** kino's REST address, e.g. http://127.0.0.1:8080. */
  baseUrl: string;
  /** The organisation's API key, when kino has keys. */
  apiKey?: string;
  /** Times a 429 or 503 is tried again after its Retry-After (default 3). */
  maxRetries?: number;
  /** The fetch to use (default globalThis.fetch). */
  fetch?: typeof fetch;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
}

/** Options of one call. */
export interface CallOptions {
  signal?: AbortSignal;
  /**
   * The Idempotency-Key of a submit. Without one, a submit that may be sent
   * again (after a 429 or 503) gets a random key, so it is never made twice.
   */
  idempotencyKey?: string;
}

/** Options of wait: progress as it comes. */
export interface WaitOptions<R> {
  signal?: AbortSignal;
  /** Called with every record the stream sends, the last one included. */
  onProgress?: (record: R) => void;
}

const renderDone = new Set(["completed", "failed", "cancelled"]);
const jobDone = new Set(["complete", "failed", "cancelled"]);
const runDone = new Set(["complete", "completed", "failed", "cancelled"]);

type Body = BodyInit | undefined;

interface Req {
  method: string;
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  body?: () => Body | Promise<Body>;
  headers?: Record<string, string>;
  /** A submit: sent with an Idempotency-Key so that a retry is safe. */
  submit?: boolean;
  /** The body can be sent only once (a stream): never retried. */
  once?: boolean;
  accept?: string;
}

/** The client: one per kino and API key. */
export class Kino {
  readonly renders: Renders;
  readonly jobs: Jobs;
  readonly uploads: Uploads;
  readonly assets: Assets;
  readonly templates: Templates;
  readonly pipelines: Pipelines;

  private readonly base: string;
  private readonly opts: KinoOptions;
  private readonly fetcher: typeof fetch;

  constructor(opts: KinoOptions) {
    this.opts = opts;
    this.base = opts.baseUrl.replace(/\/+$/, "");
    this.fetcher = opts.fetch ?? globalThis.fetch.bind(globalThis);
    this.renders = new Renders(this);
    this.jobs = new Jobs(this);
    this.uploads = new Uploads(this);
    this.assets = new Assets(this);
    this.templates = new Templates(this);
    this.pipelines = new Pipelines(this);
  }

  /** The organisation's usage by day and type (GET /usage). */
  usage(query: Query<"UsageService_GetUsage"> = {}, o: CallOptions = {}): Promise<Usage> {
    return this.json({ method: "GET", path: "/usage", query }, o);
  }

  /** Whose key this is, its limits and storage (GET /orgs/current). */
  async org(o: CallOptions = {}): Promise<CurrentOrg> {
    return (await this.json<{ data: CurrentOrg }>({ method: "GET", path: "/orgs/current" }, o)).data;
  }

  /** @internal A request answered with JSON. */
  async json<T>(r: Req, o: CallOptions): Promise<T> {
    const res = await this.send(r, o);
    return (await res.json()) as T;
  }

  /** @internal A request with retries; the answer is 2xx, else a KinoError is thrown. */
  async send(r: Req, o: CallOptions): Promise<Response> {
    const url = new URL(this.base + r.path);
    for (const [k, v] of Object.entries(r.query ?? {})) {
      if (v !== undefined && v !== "") url.searchParams.set(k, String(v));
    }
    const headers: Record<string, string> = { ...this.opts.headers, ...r.headers };
    if (this.opts.apiKey) headers["Authorization"] = `Bearer ${this.opts.apiKey}`;
    if (r.accept) headers["Accept"] = r.accept;
    if (r.json !== undefined) headers["Content-Type"] = "application/json";
    if (r.submit) headers["Idempotency-Key"] = o.idempotencyKey ?? randomKey();
    const max = r.once ? 0 : (this.opts.maxRetries ?? 3);
    for (let attempt = 0; ; attempt++) {
      let res: Response;
      try {
        const body = r.json !== undefined ? JSON.stringify(r.json) : await r.body?.();
        const init: RequestInit & { duplex?: string } = { method: r.method, headers, body, signal: o.signal };
        // Node's fetch sends a stream body only half-duplex, and says so.
        if (body instanceof ReadableStream) init.duplex = "half";
        res = await this.fetcher(url, init);
      } catch (e) {
        if (o.signal?.aborted) throw e;
        // No answer: safe to send again only when a repeat cannot do twice.
        if ((r.method === "GET" || r.submit) && attempt < max) {
          await delay(backoff(attempt), o.signal);
          continue;
        }
        throw new KinoError("NETWORK_ERROR", String((e as Error)?.message ?? e), 0);
      }
      if (res.ok) return res;
      const err = await readError(res);
      if ((res.status === 429 || res.status === 503) && attempt < max) {
        await delay(err.retryAfter !== undefined ? err.retryAfter * 1000 + jitter() : backoff(attempt), o.signal);
        continue;
      }
      throw err;
    }
  }

  /** @internal The records of a watch stream, as Server-Sent Events. */
  async *stream<T>(path: string, signal?: AbortSignal): AsyncGenerator<T> {
    const res = await this.send({ method: "GET", path, accept: "text/event-stream" }, { signal });
    if (!res.body) return;
    for await (const ev of sse(res.body)) {
      if (ev.event === "error") {
        const e = JSON.parse(ev.data) as { code?: string; message?: string };
        throw new KinoError(e.code ?? "INTERNAL", e.message ?? "", res.status);
      }
      yield JSON.parse(ev.data) as T;
    }
  }

  /** @internal Follows a watch stream to a terminal record, opening it again when it ends early. */
  async waitFor<T extends { status?: string }>(
    path: string,
    done: Set<string>,
    o: WaitOptions<T>,
    get: () => Promise<T>,
  ): Promise<T> {
    for (;;) {
      let last: T | undefined;
      try {
        for await (const rec of this.stream<T>(path, o.signal)) {
          last = rec;
          o.onProgress?.(rec);
          if (rec.status && done.has(rec.status)) return rec;
        }
      } catch (e) {
        // A stream cut by the network is opened again; kino's errors are the caller's.
        if (!(e instanceof KinoError) || e.code !== "NETWORK_ERROR") {
          if (!(e instanceof TypeError) || o.signal?.aborted) throw e;
        }
      }
      // The stream ended without a terminal record: read the record once,
      // then watch again.
      const rec = await get();
      if (rec.status && done.has(rec.status)) {
        if (rec !== last) o.onProgress?.(rec);
        return rec;
      }
      await delay(250 + jitter(), o.signal);
    }
  }
}

/** Renders: /api/render. */
export class Renders {
  constructor(private readonly k: Kino) {}

  /** Submits a render; it is queued. */
  submit(req: RenderRequest, o: CallOptions = {}): Promise<RenderSubmitted> {
    return this.k.json({ method: "POST", path: "/api/render", json: req, submit: true }, o);
  }

  /** A render's status record. */
  get(id: string, o: CallOptions = {}): Promise<RenderJob> {
    return this.k.json({ method: "GET", path: `/api/render/${enc(id)}` }, o);
  }

  /** Cancels a render that has not ended (400 JOB_NOT_CANCELLABLE otherwise). */
  cancel(id: string, o: CallOptions = {}): Promise<Schemas["CancelRenderResponse"]> {
    return this.k.json({ method: "DELETE", path: `/api/render/${enc(id)}` }, o);
  }

  /** The organisation's renders, newest first. */
  list(query: Query<"RenderService_ListRenders"> = {}, o: CallOptions = {}): Promise<Page<RenderJob, Schemas["RenderListMeta"]>> {
    return this.k.json({ method: "GET", path: "/api/render", query }, o);
  }

  /** The request a render was made from, ready to submit again. */
  async request(id: string, o: CallOptions = {}): Promise<Schemas["RenderSubmission"]> {
    return this.k.json({ method: "GET", path: `/api/render/${enc(id)}/request` }, o);
  }

  /** The render's record at once, then at every change, until it ends (SSE). */
  events(id: string, o: { signal?: AbortSignal } = {}): AsyncGenerator<RenderJob> {
    return this.k.stream<RenderJob>(`/api/render/${enc(id)}/events`, o.signal);
  }

  /** Waits for the render to end and returns its last record (completed, failed or cancelled). */
  wait(id: string, o: WaitOptions<RenderJob> = {}): Promise<RenderJob> {
    return this.k.waitFor(`/api/render/${enc(id)}/events`, renderDone, o, () => this.get(id, o));
  }

  /** The picture of the frame a render of req shows at req.time. */
  async preview(req: PreviewRequest, o: CallOptions = {}): Promise<Preview> {
    const res = await this.k.send({ method: "POST", path: "/api/render/preview", json: req }, o);
    return {
      contentType: res.headers.get("Content-Type") ?? "application/octet-stream",
      bytes: new Uint8Array(await res.arrayBuffer()),
    };
  }
}

/** Media jobs: /jobs. */
export class Jobs {
  constructor(private readonly k: Kino) {}

  /** Creates a media job; it waits for a worker. */
  async create(req: JobRequest, o: CallOptions = {}): Promise<Job> {
    return (await this.k.json<{ data: Job }>({ method: "POST", path: "/jobs", json: req, submit: true }, o)).data;
  }

  /** A media job's record. */
  async get(id: string, o: CallOptions = {}): Promise<Job> {
    return (await this.k.json<{ data: Job }>({ method: "GET", path: `/jobs/${enc(id)}` }, o)).data;
  }

  /** The organisation's media jobs, newest first. */
  list(query: Query<"JobService_ListJobs"> = {}, o: CallOptions = {}): Promise<Page<Job>> {
    return this.k.json({ method: "GET", path: "/jobs", query }, o);
  }

  /** Cancels a media job that has not ended. */
  async cancel(id: string, o: CallOptions = {}): Promise<Job> {
    return (await this.k.json<{ data: Job }>({ method: "POST", path: `/jobs/${enc(id)}/cancel` }, o)).data;
  }

  /** The job type catalogue. */
  async types(o: CallOptions = {}): Promise<JobType[]> {
    return (await this.k.json<{ data: JobType[] }>({ method: "GET", path: "/jobs/types" }, o)).data;
  }

  /** The job's record at once, then at every change, until it ends (SSE). */
  events(id: string, o: { signal?: AbortSignal } = {}): AsyncGenerator<Job> {
    return this.k.stream<Job>(`/jobs/${enc(id)}/events`, o.signal);
  }

  /** Waits for the job to end and returns its last record (complete, failed or cancelled). */
  wait(id: string, o: WaitOptions<Job> = {}): Promise<Job> {
    return this.k.waitFor(`/jobs/${enc(id)}/events`, jobDone, o, () => this.get(id, o));
  }
}

/** What uploads.create takes: a file path (Node), a Blob or File, bytes, or a stream (sent once, never retried). */
export type UploadSource = string | Blob | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array>;

/** File uploads: POST /uploads, kept for a while, read as sources by renders and jobs. */
export class Uploads {
  constructor(private readonly k: Kino) {}

  /** Stores a file; its downloadUrl is a source any render or job of the organisation may use. */
  async create(source: UploadSource, o: CallOptions & { filename?: string; contentType?: string } = {}): Promise<Upload> {
    const { body, filename, once } = await bodyOf(source, o.filename);
    const headers: Record<string, string> = {};
    if (o.contentType) headers["Content-Type"] = o.contentType;
    const r: Req = { method: "POST", path: "/uploads", query: { filename }, body, headers, once };
    return (await this.k.json<{ data: Upload }>(r, o)).data;
  }
}

/** Assets: /assets (images, fonts, PSD templates, captions). */
export class Assets {
  constructor(private readonly k: Kino) {}

  /** Uploads an asset as multipart/form-data: type is image, psd_template, font or captions. */
  async upload(
    source: Exclude<UploadSource, ReadableStream<Uint8Array>>,
    fields: { type: string; name?: string; category?: string; scope?: string; filename?: string },
    o: CallOptions = {},
  ): Promise<Asset> {
    const { body, filename } = await bodyOf(source, fields.filename);
    const form = async () => {
      const f = new FormData();
      for (const k of ["type", "name", "category", "scope"] as const) {
        const v = fields[k];
        if (v) f.set(k, v);
      }
      // kino reads the fields before the file, so the file is last.
      const b = await body();
      f.set("file", b instanceof Blob ? b : new Blob([b as BlobPart]), filename);
      return f;
    };
    return (await this.k.json<{ data: Asset }>({ method: "POST", path: "/assets", body: form }, o)).data;
  }

  /** An asset's record. */
  async get(id: string, o: CallOptions = {}): Promise<Asset> {
    return (await this.k.json<{ data: Asset }>({ method: "GET", path: `/assets/${enc(id)}` }, o)).data;
  }

  /** The organisation's assets (and the system's). */
  list(query: Query<"AssetService_ListAssets"> = {}, o: CallOptions = {}): Promise<Page<Asset, Schemas["AssetListMeta"]>> {
    return this.k.json({ method: "GET", path: "/assets", query }, o);
  }

  /** Deletes an asset. */
  async delete(id: string, o: CallOptions = {}): Promise<void> {
    await this.k.send({ method: "DELETE", path: `/assets/${enc(id)}` }, o);
  }
}

/** Render templates: /api/templates, compositions with {{NAME}} placeholders. */
export class Templates {
  constructor(private readonly k: Kino) {}

  /** Stores a template. */
  create(req: TemplateRequest, o: CallOptions = {}): Promise<Template> {
    return this.k.json({ method: "POST", path: "/api/templates", json: req }, o);
  }

  /** A template. */
  get(id: string, o: CallOptions = {}): Promise<Template> {
    return this.k.json({ method: "GET", path: `/api/templates/${enc(id)}` }, o);
  }

  /** The organisation's templates, newest first. */
  list(query: Query<"TemplateService_ListTemplates"> = {}, o: CallOptions = {}): Promise<Schemas["render.v1.ListTemplatesResponse"]> {
    return this.k.json({ method: "GET", path: "/api/templates", query }, o);
  }

  /** Deletes a template; renders made from it are kept. */
  async delete(id: string, o: CallOptions = {}): Promise<void> {
    await this.k.send({ method: "DELETE", path: `/api/templates/${enc(id)}` }, o);
  }
}

/** Pipelines and their runs: /pipelines. */
export class Pipelines {
  constructor(private readonly k: Kino) {}

  /** Stores a pipeline. */
  async create(req: PipelineRequest, o: CallOptions = {}): Promise<Pipeline> {
    return (await this.k.json<{ data: Pipeline }>({ method: "POST", path: "/pipelines", json: req }, o)).data;
  }

  /** A pipeline. */
  async get(id: string, o: CallOptions = {}): Promise<Pipeline> {
    return (await this.k.json<{ data: Pipeline }>({ method: "GET", path: `/pipelines/${enc(id)}` }, o)).data;
  }

  /** The organisation's pipelines. */
  list(query: Query<"PipelineService_ListPipelines"> = {}, o: CallOptions = {}): Promise<Page<Pipeline, Schemas["PipelineListMeta"]>> {
    return this.k.json({ method: "GET", path: "/pipelines", query }, o);
  }

  /** Runs a pipeline: inputs are an object per node id. */
  async run(id: string, req: RunRequest, o: CallOptions = {}): Promise<PipelineRun> {
    const r: Req = { method: "POST", path: `/pipelines/${enc(id)}/runs`, json: req, submit: true };
    return (await this.k.json<{ data: PipelineRun }>(r, o)).data;
  }

  /** A run, with each node's job. */
  async getRun(id: string, runId: string, o: CallOptions = {}): Promise<PipelineRun> {
    const r: Req = { method: "GET", path: `/pipelines/${enc(id)}/runs/${enc(runId)}` };
    return (await this.k.json<{ data: PipelineRun }>(r, o)).data;
  }

  /** A pipeline's runs, newest first. */
  listRuns(id: string, query: Query<"PipelineService_ListPipelineRuns"> = {}, o: CallOptions = {}): Promise<Page<PipelineRun, Schemas["PipelineListMeta"]>> {
    return this.k.json({ method: "GET", path: `/pipelines/${enc(id)}/runs`, query }, o);
  }

  /** Cancels a run's jobs that have not ended. */
  async cancelRun(id: string, runId: string, o: CallOptions = {}): Promise<PipelineRun> {
    const r: Req = { method: "POST", path: `/pipelines/${enc(id)}/runs/${enc(runId)}/cancel` };
    return (await this.k.json<{ data: PipelineRun }>(r, o)).data;
  }

  /** The run at once, then at every change, until it ends (SSE). */
  runEvents(id: string, runId: string, o: { signal?: AbortSignal } = {}): AsyncGenerator<PipelineRun> {
    return this.k.stream<PipelineRun>(`/pipelines/${enc(id)}/runs/${enc(runId)}/events`, o.signal);
  }

  /** Waits for the run to end and returns it. */
  waitRun(id: string, runId: string, o: WaitOptions<PipelineRun> = {}): Promise<PipelineRun> {
    const path = `/pipelines/${enc(id)}/runs/${enc(runId)}/events`;
    return this.k.waitFor(path, runDone, o, () => this.getRun(id, runId, o));
  }
}

/** One Server-Sent Event. */
export interface ServerEvent {
  event: string;
  data: string;
}

/** Parses a Server-Sent Events stream (the WHATWG rules kino's stream needs: event, data, blank line). */
export async function* sse(body: ReadableStream<Uint8Array>): AsyncGenerator<ServerEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buf = "";
  let event = "";
  let data: string[] = [];
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buf += decoder.decode(value, { stream: true });
      let nl: number;
      while ((nl = buf.search(/\r\n|\r|\n/)) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + (buf.startsWith("\r\n", nl) ? 2 : 1));
        if (line === "") {
          if (data.length) yield { event: event || "message", data: data.join("\n") };
          event = "";
          data = [];
          continue;
        }
        if (line.startsWith(":")) continue;
        const i = line.indexOf(":");
        const field = i < 0 ? line : line.slice(0, i);
        let value = i < 0 ? "" : line.slice(i + 1);
        if (value.startsWith(" ")) value = value.slice(1);
        if (field === "event") event = value;
        else if (field === "data") data.push(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => {});
  }
}

async function readError(res: Response): Promise<KinoError> {
  const ra = res.headers.get("Retry-After");
  let retryAfter: number | undefined;
  if (ra !== null) {
    const n = Number(ra);
    retryAfter = Number.isFinite(n) ? n : Math.max(0, (Date.parse(ra) - Date.now()) / 1000);
  }
  const text = await res.text().catch(() => "");
  try {
    const e = (JSON.parse(text) as { error?: { code?: string; message?: string; details?: [] } }).error;
    if (e?.code) return new KinoError(e.code, e.message ?? "", res.status, retryAfter, e.details);
  } catch {
    // Not kino's envelope (a proxy's page): the status says what it can.
  }
  return new KinoError(`HTTP_${res.status}`, text.slice(0, 200) || res.statusText, res.status, retryAfter);
}

async function bodyOf(
  source: UploadSource,
  name?: string,
): Promise<{ body: () => Body | Promise<Body>; filename: string; once: boolean }> {
  if (typeof source === "string") {
    // A path: Node only, imported here so that browsers never load node:fs.
    const fs = await import("node:fs");
    const path = await import("node:path");
    const blob = await fs.openAsBlob(source);
    return { body: () => blob, filename: name ?? path.basename(source), once: false };
  }
  if (source instanceof ReadableStream) {
    return { body: () => source, filename: name ?? "upload", once: true };
  }
  if (source instanceof Blob) {
    const fileName = (source as Blob & { name?: string }).name;
    return { body: () => source, filename: name ?? (fileName || "upload"), once: false };
  }
  return { body: () => source as BodyInit, filename: name ?? "upload", once: false };
}

function enc(s: string): string {
  return encodeURIComponent(s);
}

function randomKey(): string {
  return globalThis.crypto.randomUUID();
}

function jitter(): number {
  return Math.random() * 250;
}

function backoff(attempt: number): number {
  return Math.min(8000, 500 * 2 ** attempt) + jitter();
}

function delay(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
