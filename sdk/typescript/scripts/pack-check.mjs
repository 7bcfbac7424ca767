// Packs the package, installs the tarball into an empty folder, and runs
// the README's example there against a kino started for it: what a user
// gets from `npm pack` works as the README says.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startKino } from "../test/kino.mjs";

const pkg = fileURLToPath(new URL("..", import.meta.url));
const readme = readFileSync(join(pkg, "README.md"), "utf8");
const example = readme.match(/## Example[\s\S]*?```js\n([\s\S]*?)```/)?.[1];
if (!example) throw new Error("README.md has no ```js block under ## Example");

const dir = mkdtempSync(join(tmpdir(), "kino-sdk-pack-"));
const kino = await startKino();
try {
  const out = execFileSync("npm", ["pack", "--silent", "--pack-destination", dir], { cwd: pkg, encoding: "utf8" });
  const tgz = join(dir, out.trim().split("\n").at(-1));
  const app = join(dir, "app");
  execFileSync("mkdir", [app]);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name: "app", private: true, type: "module" }));
  execFileSync("npm", ["install", "--offline", "--no-audit", "--no-fund", "--silent", tgz], { cwd: app, stdio: "inherit" });
  writeFileSync(join(app, "example.mjs"), example);
  const log = execFileSync("node", ["example.mjs"], {
    cwd: app, encoding: "utf8", env: { ...process.env, KINO_URL: kino.baseUrl, KINO_API_KEY: kino.apiKey },
  });
  process.stdout.write(log);
  for (const want of [/^render: completed http/m, /^job: complete http/m, /^error: 404 JOB_NOT_FOUND$/m]) {
    if (!want.test(log)) throw new Error(`the README example did not print ${want}`);
  }
  const jpeg = readFileSync(join(app, "frame.jpg"));
  if (jpeg[0] !== 0xff || jpeg[1] !== 0xd8) throw new Error("frame.jpg is not a JPEG");
  console.log("pack-check: the packed package runs its README example");
} finally {
  await kino.stop();
  rmSync(dir, { recursive: true, force: true });
}
