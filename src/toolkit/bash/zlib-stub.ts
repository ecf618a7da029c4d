/**
 * A stand-in for `node:zlib` where there is none (a browser, a Worker
 * without nodejs_compat): just-bash's browser build imports it for gzip,
 * which this shell does not offer. Alias `node:zlib` to
 * `isoagent/toolkit/bash/zlib-stub` when bundling isoagent/toolkit/bash
 * for such a platform; anything that still reaches it fails with a clear
 * error instead of loading Node.
 *
 * @module
 */
const unavailable = (): never => {
  throw new Error("gzip is not available in this shell");
};

/** Throws: gzip is not offered here. */
export const gzipSync = unavailable;
/** Throws: gunzip is not offered here. */
export const gunzipSync = unavailable;
/** Empty: no zlib constants here. */
export const constants: Readonly<Record<string, number>> = {};
/** The stand-in as `node:zlib`'s default export. */
export default { gzipSync, gunzipSync, constants };
