// The OpenAPI document stays the one source: src/openapi.ts must be what
// scripts/generate.mjs makes of gateway/apidocs/kino.swagger.json now.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { generate } from "../scripts/generate.mjs";

test("src/openapi.ts is generated from kino's current OpenAPI document", async () => {
  const committed = await readFile(new URL("../src/openapi.ts", import.meta.url), "utf8");
  const fresh = await generate();
  assert.ok(committed === fresh, "src/openapi.ts is stale: run `npm run generate` in sdk/typescript and commit it");
});
