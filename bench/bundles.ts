/**
 * `npm run bench -- bundle`: isoagent's core as a browser app ships it
 * (minified, gzipped, with its dependencies, split where the code loads
 * something on demand) against each peer's core bundled the same way with
 * esbuild in the same run. Two entries of isoagent: the whole index, and
 * what a tool-using agent on the memory store imports (createDriver,
 * defineTool, memoryStore, scriptedAgent). Counted: the chunks every load
 * fetches; full schema support, loaded on demand, is shown apart.
 */
import { entryBundle, type SplitBundle } from "../scripts/lib/bundle.js";
import { peerBundles, type PeerBundle } from "./peers/bundles.js";
import { result, type Result } from "./results.js";

export interface BundleFigure {
  readonly core: SplitBundle;
  readonly driver: SplitBundle;
  readonly peers: PeerBundle[];
}

export async function benchBundles(): Promise<BundleFigure> {
  return { core: await entryBundle("index"), driver: await entryBundle("driver"), peers: await peerBundles() };
}

const kb = (n: number | undefined): string => (n === undefined ? "—" : `${(n / 1024).toFixed(1)} KB`);

export function printBundles(f: BundleFigure): void {
  console.log("bundle: minified + gzipped for the browser (esbuild, same options, split at dynamic imports), same run; the chunks every load fetches");
  console.log("| package | minified | gzipped |");
  console.log("|---|---:|---:|");
  console.log(`| isoagent (index) | ${kb(f.core.minBytes)} | ${kb(f.core.gzipBytes)} |`);
  console.log(`| isoagent (createDriver, defineTool, memoryStore, scriptedAgent) | ${kb(f.driver.minBytes)} | ${kb(f.driver.gzipBytes)} |`);
  console.log(`| isoagent full schema support (on demand: loadFullSchemaSupport()) | ${kb(f.core.lazy.minBytes)} | ${kb(f.core.lazy.gzipBytes)} |`);
  for (const p of f.peers) console.log(`| ${p.name} | ${p.ok ? kb(p.minBytes) : "—"} | ${p.ok ? kb(p.gzipBytes) : `does not bundle: ${p.why}`} |`);
}

export function bundleResults(f: BundleFigure): Result[] {
  const ok = f.peers.filter((p) => p.ok && p.gzipBytes !== undefined);
  const smallest = ok.reduce((a, b) => (b.gzipBytes! < a.gzipBytes! ? b : a));
  const detail = {
    coreGzipBytes: f.core.gzipBytes,
    driverEntryGzipBytes: f.driver.gzipBytes,
    fullSchemaSupportGzipBytes: f.core.lazy.gzipBytes,
    peers: Object.fromEntries(f.peers.map((p) => [p.name, p.ok ? p.gzipBytes : `does not bundle: ${p.why}`])),
  };
  return [
    result("bundle.vs-smallest-peer", `isoagent index ÷ the smallest peer (${smallest.name}), minified + gzipped, chunks every load fetches`, f.core.gzipBytes / smallest.gzipBytes!, "<= 0.2", detail),
    result(
      "bundle.driver-entry-vs-smallest-peer",
      `isoagent's createDriver + defineTool + memoryStore + scriptedAgent ÷ the smallest peer (${smallest.name}), minified + gzipped, chunks every load fetches`,
      f.driver.gzipBytes / smallest.gzipBytes!,
      "<= 0.2",
      detail,
    ),
  ];
}
