/**
 * A minimal Worker (the one wrangler.toml names until the Durable Object
 * issue brings the real one): POST /check/<tool> with the raw argument text
 * as the body; it answers with what the runtime accepts or the exact
 * invalid_decision text. No eval anywhere, as workerd requires.
 */
import { checkArgs } from "../../src/index.js";
import { readFile, writeFile } from "../tools.js";

const TOOLS = { read_file: readFile, write_file: writeFile } as const;

export default {
  async fetch(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const name = url.pathname.replace(/^\/check\//, "");
    if (request.method !== "POST" || !Object.prototype.hasOwnProperty.call(TOOLS, name)) {
      return Response.json({ error: { code: "NOT_FOUND", message: "POST /check/read_file or /check/write_file" } }, { status: 404 });
    }
    const r = checkArgs(TOOLS[name as keyof typeof TOOLS] as never, new Uint8Array(await request.arrayBuffer()));
    return Response.json(r.valid ? { valid: true, args: r.args } : { valid: false, failure: r.failure, text: r.text }, { status: r.valid ? 200 : 422 });
  },
};
