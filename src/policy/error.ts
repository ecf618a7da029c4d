import { IsoagentError } from "../errors.js";

/** A policy's construction refused: a rule or option it cannot mean. */
export class PolicyError extends IsoagentError {
  constructor(message: string) {
    super("POLICY_INVALID", message);
    this.name = "PolicyError";
  }
}
