/**
 * A driver's refusals, and the one that hosts beside the driver make too: a
 * run offered other tool shapes than the ones here is not resumed (the
 * driver), nor handed over (isoagent/move's import).
 *
 * @module
 */
import { IsoagentError, type DriverErrorCode } from "../errors.js";
import type { RunState } from "../journal/index.js";

export type { DriverErrorCode };

/** A driver's refusal of an operation. */
export class DriverError extends IsoagentError {
  declare readonly code: DriverErrorCode;
  constructor(code: DriverErrorCode, message: string) {
    super(code, message);
    this.name = "DriverError";
  }
}

/** Refuses (TOOL_SHAPE_CHANGED) a run whose recorded tool shapes are not exactly these: one more, one less, or one changed. */
export function shapeChecker(shapes: readonly { name: string; specHash: string }[]): (state: RunState) => void {
  const mine = new Map(shapes.map((s) => [s.name, s.specHash]));
  return (state) => {
    const theirs = new Map(state.tools.map((s) => [s.name, s.specHash]));
    const hint = "(register tools conditionally; never change a tool's shape under a live run)";
    for (const [name, hash] of theirs) {
      const own = mine.get(name);
      if (own === undefined) throw new DriverError("TOOL_SHAPE_CHANGED", `run ${state.runId} was offered tool "${name}", which this driver does not offer ${hint}`);
      if (own !== hash) throw new DriverError("TOOL_SHAPE_CHANGED", `run ${state.runId} was offered another shape of tool "${name}" ${hint}`);
    }
    for (const name of mine.keys()) {
      if (!theirs.has(name)) throw new DriverError("TOOL_SHAPE_CHANGED", `run ${state.runId} was not offered tool "${name}", which this driver offers ${hint}`);
    }
  };
}
