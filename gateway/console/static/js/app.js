// app.js: the console's shell: a hash router, the API key dialog and the
// health light. Each page is a module with render(main, route, signal);
// the signal aborts its streams and timers when the page is left.
import { auth, get, ApiError } from "./api.js";
import { h, errorBox } from "./ui.js";
import * as jobs from "./jobs.js";
import * as render from "./render.js";
import * as pipelines from "./pipelines.js";
import * as assets from "./assets.js";
import * as types from "./types.js";
import * as templates from "./templates.js";

const pages = { jobs, render, templates, pipelines, assets, types };
const main = document.getElementById("main");
let current = null;

// parse splits "#/jobs/media/ID?status=failed" into its parts.
function parse() {
  const [path, query = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { page: parts[0] || "jobs", parts: parts.slice(1), query: new URLSearchParams(query) };
}

async function route() {
  current?.abort();
  current = new AbortController();
  const r = parse();
  const page = pages[r.page] || jobs;
  for (const a of document.querySelectorAll("[data-nav]")) a.classList.toggle("on", a.dataset.nav === r.page);
  main.replaceChildren();
  document.body.dataset.page = r.page;
  try {
    await page.render(main, r, current.signal);
  } catch (err) {
    if (err.name === "AbortError") return;
    if (err instanceof ApiError && err.status === 401) return; // the key dialog is up
    main.append(errorBox(err));
  }
}

// The key dialog: shown whenever kino answers 401.
const dialog = document.getElementById("keydialog");
const keyError = document.getElementById("keyerror");
auth.onMissing = () => {
  if (dialog.open) return;
  auth.key = "";
  document.getElementById("signout").hidden = true;
  keyError.hidden = true;
  dialog.showModal();
};
dialog.addEventListener("cancel", (e) => e.preventDefault());
document.getElementById("keyform").addEventListener("submit", async (e) => {
  e.preventDefault();
  const input = document.getElementById("keyinput");
  auth.key = input.value.trim();
  try {
    await fetchCheck();
    input.value = "";
    dialog.close();
    document.getElementById("signout").hidden = false;
    route();
  } catch (err) {
    auth.key = "";
    keyError.textContent = err.status === 401 ? "kino does not know this key." : err.message;
    keyError.hidden = false;
  }
});
document.getElementById("signout").addEventListener("click", () => {
  auth.key = "";
  location.reload();
});

// fetchCheck asks a guarded endpoint, without triggering the dialog.
async function fetchCheck() {
  const res = await fetch("/jobs?limit=1", { headers: auth.key ? { Authorization: "Bearer " + auth.key } : {} });
  if (!res.ok) {
    const body = await res.json().catch(() => ({}));
    throw new ApiError(res.status, body.error?.code, body.error?.message || res.statusText);
  }
}

async function health() {
  const el = document.getElementById("health");
  try {
    const res = await fetch("/api/health");
    const body = await res.json();
    el.textContent = body.status || "unknown";
    el.className = "health " + (res.ok ? "ok" : "bad");
  } catch {
    el.textContent = "unreachable";
    el.className = "health bad";
  }
}

window.addEventListener("hashchange", route);
health();
setInterval(health, 15000);
document.getElementById("signout").hidden = !auth.key;
fetchCheck().then(route, (err) => {
  if (err.status === 401) auth.onMissing();
  else route();
});
