/**
 * The bindings a run object's Worker gives it. Apart from api.ts because
 * they name the index object's class, which imports api.ts: here, no
 * import cycle.
 */
import type { RunNamespace } from "./api.js";
import type { RunIndex } from "./index-object.js";

/** The bindings a run object needs: its own namespace (for artifact shards) and the index. */
export interface RunBindings {
  readonly RUNS: RunNamespace;
  readonly RUN_INDEX: DurableObjectNamespace<RunIndex>;
  /** This deployment's place name, as the seals handing runs to it name it (isoagent/move). Default "edge". */
  readonly ISOAGENT_PLACE?: string;
  /** This deployment's signing key, a private JWK as JSON (a secret): its exports vouch for what it owns (isoagent/move's placeKeys). */
  readonly ISOAGENT_SIGNING_KEY?: string;
  /** The public JWKs (a JSON list) of the places whose decisions a run moved here keeps; none by default, so a run moved here is decided here again. */
  readonly ISOAGENT_TRUSTED_KEYS?: string;
}
