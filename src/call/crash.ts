/**
 * A simulated crash (the testkit's fault hook, or a tool wrapper): the call
 * pipeline lets it through untouched, so the driver stops dead. Public
 * through isoagent/testkit.
 */
import { IsoagentError, isIsoagentError } from "../errors.js";

/** Thrown by fault injection (or a tool wrapper) to simulate a process dying: no more writes, no lease release. Code `CRASH`. */
export class Crash extends IsoagentError {
  constructor(message = "simulated crash") {
    super("CRASH", message);
    this.name = "Crash";
  }
}

/** True for a {@link Crash} from any copy of the library: `isIsoagentError(e, "CRASH")`. */
export function isCrash(e: unknown): e is Crash {
  return isIsoagentError(e, "CRASH");
}
