/**
 * A smoke check of the peers' side of the benches, not a measurement: each
 * peer loop runs once at n = 5 and once at n = 50 (the first run also pays
 * for warm-up and module initialisation, so treat n = 5 as indicative only),
 * then each peer's browser bundle is built. Run with:
 *   cd /work/main && PATH=$PWD/node_modules/.bin:$PATH tsx bench/peers/check.ts
 */
import { performance } from "node:perf_hooks";
import { peerBundles } from "./bundles.js";
import { PEER_LOOPS } from "./steps.js";

let failed = false;

console.log("peer loops (one run each; ms per step)");
for (const peer of PEER_LOOPS) {
  const cells: string[] = [];
  for (const n of [5, 50]) {
    const t0 = performance.now();
    try {
      await peer.run(n);
      cells.push(`n=${n}: ${((performance.now() - t0) / n).toFixed(3)} ms/step`);
    } catch (err) {
      failed = true;
      cells.push(`n=${n}: FAILED ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  console.log(`  ${peer.name} ${peer.version}: ${cells.join(", ")}`);
}

const kb = (n: number): string => `${(n / 1024).toFixed(1)} KB`;
console.log("peer bundles (browser, minified + gzip -9)");
for (const b of await peerBundles()) {
  console.log(b.ok ? `  ${b.name}: ${kb(b.gzipBytes!)} gzipped (${kb(b.minBytes!)} minified)` : `  ${b.name}: not bundled: ${b.why}`);
}

if (failed) process.exitCode = 1;
