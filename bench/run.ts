/**
 * `npm run bench [-- <id-prefix>...] [--quick]`: runs the benchmarks whose id
 * starts with a given prefix (all when none is given). Every figure is a
 * ratio to a baseline measured in the same run.
 */
import { benchCheckArgs, printCheckArgs } from "./check-args.js";
import { benchDo, printDo } from "./do.js";
import { benchIdb, printIdb } from "./idb.js";
import { benchSteps, printSteps } from "./steps.js";

const args = process.argv.slice(2);
const quick = args.includes("--quick");
const prefixes = args.filter((a) => !a.startsWith("--"));
const options = quick ? { rounds: 5, batchMs: 15 } : { rounds: 15, batchMs: 40 };

const BENCHMARKS: Record<string, () => void | Promise<void>> = {
  "check-args": () => printCheckArgs(benchCheckArgs(options)),
  steps: async () => printSteps(await benchSteps({ quick })),
  idb: async () => printIdb(await benchIdb({ quick })),
  do: async () => printDo(await benchDo({ quick })),
};

const selected = Object.keys(BENCHMARKS).filter((id) => prefixes.length === 0 || prefixes.some((p) => id.startsWith(p)));
if (selected.length === 0) {
  console.error(`no benchmark matches ${prefixes.join(", ")}; known: ${Object.keys(BENCHMARKS).join(", ")}`);
  process.exit(2);
}
console.log(`node ${process.version}, ${new Date().toISOString().slice(0, 10)}${quick ? ", quick" : ""}`);
for (const id of selected) await BENCHMARKS[id]!();
