import type { Miniflare } from "miniflare";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startWorker } from "../helpers/workerd.js";

// The Worker wrangler.toml names, bundled as wrangler would and run in workerd.
let mf: Miniflare;

beforeAll(async () => {
  mf = await startWorker("examples/worker/index.ts");
});

afterAll(async () => {
  await mf?.dispose();
});

describe("examples/worker (wrangler.toml's main) in workerd", () => {
  it("accepts valid arguments and answers invalid ones with the invalid_decision text", async () => {
    const ok = await mf.dispatchFetch("http://localhost/check/read_file", { method: "POST", body: '{"path":"notes.md","limit":null}' });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ valid: true, args: { path: "notes.md", limit: null } });
    const bad = await mf.dispatchFetch("http://localhost/check/write_file", { method: "POST", body: new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]) });
    expect(bad.status).toBe(422);
    const body = (await bad.json()) as { failure: string; text: string };
    expect(body.failure).toBe("invalid_json");
    expect(body.text.split("\n")[0]).toBe("Error: invalid arguments for write_file: the arguments are not valid JSON: invalid UTF-8 byte 0xFF at line 1, column 3");
    const missing = await mf.dispatchFetch("http://localhost/check/run_command", { method: "POST", body: "{}" });
    expect(missing.status).toBe(404);
  });
});
