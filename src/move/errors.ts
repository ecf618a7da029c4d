/**
 * The typed errors of bundles and moves. Every refusal of a bundle says
 * what is wrong and where (a line, an event, an artifact), and nothing of a
 * refused bundle is written.
 */
import { IsoagentError, isIsoagentError, type IsoagentErrorCode } from "../errors.js";

/** The codes a bundle or a move is refused with (listed once, in IsoagentErrorCode). */
export type MoveErrorCode = Extract<IsoagentErrorCode, `BUNDLE_${string}` | "RUN_DIVERGED" | "MOVE_FENCED" | "MOVE_REFUSED">;

/**
 * A bundle refused, or a move that cannot go on. `seq` names the first
 * differing event of a diverged run.
 */
export class MoveError extends IsoagentError {
  declare readonly code: MoveErrorCode;
  readonly seq: number | undefined;
  constructor(code: MoveErrorCode, message: string, details: { seq?: number } = {}) {
    super(code, message);
    this.name = "MoveError";
    this.seq = details.seq;
  }
}

/** True for a {@link MoveError} from any copy of the library: `isIsoagentError` with one of its codes. */
export function isMoveError(e: unknown): e is MoveError {
  return isIsoagentError(e) && (e.code.startsWith("BUNDLE_") || e.code === "RUN_DIVERGED" || e.code === "MOVE_FENCED" || e.code === "MOVE_REFUSED");
}
