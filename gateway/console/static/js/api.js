// api.js: the console's only way to kino, the public REST API, with the
// caller's API key (if any) sent as the API documents it.

const keyName = "kino.apiKey";

export const auth = {
  get key() { return sessionStorage.getItem(keyName) || ""; },
  set key(v) { v ? sessionStorage.setItem(keyName, v) : sessionStorage.removeItem(keyName); },
  // onMissing is called when kino answers 401; the app asks for a key.
  onMissing: () => {},
};

// ApiError is the documented envelope {"error":{"code","message"}}.
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

function headers(extra = {}) {
  const h = { ...extra };
  if (auth.key) h.Authorization = "Bearer " + auth.key;
  return h;
}

async function fail(res) {
  let code = "HTTP_" + res.status, message = res.statusText || "request failed";
  try {
    const body = await res.json();
    if (body && body.error) ({ code, message } = body.error);
  } catch { /* not the envelope: keep the status */ }
  if (res.status === 401) auth.onMissing();
  return new ApiError(res.status, code, message);
}

// call sends one request and returns the decoded JSON body.
export async function call(method, path, body, signal) {
  const init = { method, headers: headers(), signal };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const res = await fetch(path, init);
  if (!res.ok) throw await fail(res);
  return res.json();
}

export const get = (path, signal) => call("GET", path, undefined, signal);

// picture posts a JSON body to an endpoint that answers a picture (a
// preview) and returns it as a Blob. A JSON answer carrying the picture
// (contentType and base64 data, as gRPC's message reads) is taken too.
export async function picture(path, body, signal) {
  const res = await fetch(path, { method: "POST", headers: headers({ "Content-Type": "application/json" }), body: JSON.stringify(body), signal });
  if (!res.ok) throw await fail(res);
  const type = res.headers.get("Content-Type") || "";
  if (!type.includes("json")) return res.blob();
  const m = await res.json();
  const bin = atob(m.data || "");
  return new Blob([Uint8Array.from(bin, (c) => c.charCodeAt(0))], { type: m.contentType || "image/jpeg" });
}

// watch follows a job, run or render over its events endpoint. It reads the
// newline-delimited JSON form, because EventSource cannot send the API key.
// onRecord gets every record; the promise ends with the stream.
export async function watch(path, onRecord, signal) {
  const res = await fetch(path, { headers: headers({ Accept: "application/x-ndjson" }), signal });
  if (!res.ok) throw await fail(res);
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buf = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let nl;
    while ((nl = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (!line) continue;
      const msg = JSON.parse(line);
      if (msg.error) throw new ApiError(200, msg.error.code, msg.error.message);
      onRecord(msg.result);
    }
  }
}

// qs builds a query string from the set values.
export function qs(params) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== "") p.set(k, v);
  const s = p.toString();
  return s ? "?" + s : "";
}
