// Starts a real kino for the tests: `kino serve` on free ports of
// 127.0.0.1 with a fresh data folder and an API key. KINO_BIN names a
// built binary; without it, ./cmd/kino is built once into a temp folder.
import { spawn, execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createInterface } from "node:readline";

const repo = resolve(fileURLToPath(new URL("../../..", import.meta.url)));

let built;
/** The kino binary: KINO_BIN, or ./cmd/kino built once. */
export function kinoBin() {
  if (process.env.KINO_BIN) return process.env.KINO_BIN;
  if (built) return built;
  const dir = mkdtempSync(join(tmpdir(), "kino-sdk-bin-"));
  built = join(dir, "kino");
  execFileSync("go", ["build", "-o", built, "./cmd/kino"], { cwd: repo, stdio: "inherit" });
  process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  return built;
}

export const apiKey = "sdk-test-key-0123456789";

/**
 * Starts kino and resolves when it serves: {baseUrl, grpcAddr, apiKey, stop()}.
 * extra are more flags of kino serve.
 */
export async function startKino(extra = []) {
  const dataDir = mkdtempSync(join(tmpdir(), "kino-sdk-data-"));
  const args = ["serve", "--http-addr", "127.0.0.1:0", "--grpc-addr", "127.0.0.1:0", "--data-dir", dataDir,
    "--log-format", "json", "--workers", "2", "--api-keys", `${apiKey}=sdk`, ...extra];
  const child = spawn(kinoBin(), args, { stdio: ["ignore", "ignore", "pipe"] });
  const logs = [];
  const exited = new Promise((res) => child.on("exit", res));
  const ready = new Promise((res, rej) => {
    createInterface({ input: child.stderr }).on("line", (line) => {
      logs.push(line);
      try {
        const m = JSON.parse(line);
        if (m.msg === "kino serving") res({ http: m.http, grpc: m.grpc });
      } catch {
        // not a log line of kino's
      }
    });
    exited.then((code) => rej(new Error(`kino exited (${code}) before serving:\n${logs.join("\n")}`)));
  });
  const addr = await ready;
  return {
    baseUrl: `http://${addr.http}`,
    grpcAddr: addr.grpc,
    apiKey,
    dataDir,
    logs,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
      if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
