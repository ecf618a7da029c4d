/**
 * isoagent/move: one run, many places. A verifiable, streamed run bundle
 * (exportRun, importRun), moves of a run's ownership between places with
 * fencing (moveRun, settleMove, sealRun), mirrors of a run to another
 * place (mirrorRun), the HTTP side of a place (httpPlace), and the keys
 * that say whose decisions a place takes when a run is handed to it
 * (generateBundleKey, signingKey, trustedKeys; see docs/moves.md).
 *
 * @module
 */
export { MoveError, type MoveErrorCode } from "./errors.js";
export {
  artifactNames,
  artifactsNamed,
  BUNDLE_FORMAT,
  BUNDLE_MEDIA_TYPE,
  BUNDLE_VERSION,
  DEFAULT_MAX_ARTIFACT_BYTES,
  DEFAULT_MAX_BUNDLE_BYTES,
  type BundleHeader,
  type BundleWorkspace,
} from "./format.js";
export { bundleBytes, bundleText, exportRun, type ExportOptions } from "./export.js";
export { checkFencing, readBundle, type BundleInput, type BundleLimits, type VerifiedBundle } from "./read.js";
export { importRun, importVerified, movable, type ImportOptions, type ImportResult } from "./import.js";
export { localPlace, sealRun, type LocalPlaceOptions, type Place, type SealOptions } from "./place.js";
export { moveRun, settleMove, type MoveFaults, type MoveOutcome, type MovePoint, type Settlement } from "./move.js";
export { toolShapes } from "./shapes.js";
export { fromBase64, toBase64 } from "./base64.js";
export { checkImport, custodyAfterImport, tokensAfter } from "../store/copies.js";
export { tailBundle, tailOf } from "./tail.js";
export { httpPlace, type HttpFetch, type HttpPlaceOptions } from "./http.js";
export { generateBundleKey, placeKeys, signingKey, trustedKeys, type BundleJwk, type BundleKeyAlgorithm, type BundleSignature, type PlaceKeys, type SigningKey, type TrustedKeys } from "./trust.js";
export { mirrorRuns, type Mirror, type MirrorOptions, type MirrorState } from "./mirror.js";
