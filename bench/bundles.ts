/**
 * `npm run bench -- bundle`: isoagent's core as a browser app ships it
 * (minified, gzipped, with its validator and metaschemas) against each
 * peer's core bundled the same way with esbuild in the same run.
 */
import { coreBrowserBundle } from "../scripts/lib/bundle.js";
import { peerBundles, type PeerBundle } from "./peers/bundles.js";
import { result, type Result } from "./results.js";

export interface BundleFigure {
  readonly core: { minBytes: number; gzipBytes: number };
  readonly peers: PeerBundle[];
}

export async function benchBundles(): Promise<BundleFigure> {
  const core = await coreBrowserBundle();
  return { core: { minBytes: core.minBytes, gzipBytes: core.gzipBytes }, peers: await peerBundles() };
}

const kb = (n: number | undefined): string => (n === undefined ? "—" : `${(n / 1024).toFixed(1)} KB`);

export function printBundles(f: BundleFigure): void {
  console.log("bundle: minified + gzipped for the browser (esbuild, same options), same run");
  console.log("| package | minified | gzipped |");
  console.log("|---|---:|---:|");
  console.log(`| isoagent (core) | ${kb(f.core.minBytes)} | ${kb(f.core.gzipBytes)} |`);
  for (const p of f.peers) console.log(`| ${p.name} | ${p.ok ? kb(p.minBytes) : "—"} | ${p.ok ? kb(p.gzipBytes) : `does not bundle: ${p.why}`} |`);
}

export function bundleResults(f: BundleFigure): Result[] {
  const ok = f.peers.filter((p) => p.ok && p.gzipBytes !== undefined);
  const smallest = ok.reduce((a, b) => (b.gzipBytes! < a.gzipBytes! ? b : a));
  return [
    result("bundle.vs-smallest-peer", `isoagent core ÷ the smallest peer (${smallest.name}), minified + gzipped`, f.core.gzipBytes / smallest.gzipBytes!, "<= 0.2", {
      coreGzipBytes: f.core.gzipBytes,
      peers: Object.fromEntries(f.peers.map((p) => [p.name, p.ok ? p.gzipBytes : `does not bundle: ${p.why}`])),
    }),
  ];
}
