import { compileTool } from "../src/index.js";
import { CASES } from "./check-args.js";
const c = CASES.find((x) => x.what.startsWith(process.argv[2] ?? "nested"))!;
const tool = compileTool(c.spec);
const input = c.valid;
let n = 0;
const t0 = performance.now();
for (let k = 0; k < 200000; k++) if (tool.check(input).valid) n++;
console.log(((performance.now() - t0) / 200000 * 1000).toFixed(0), "ns/check", n);
