/**
 * What a streaming agent has said so far in the step it is deciding, per
 * run: shown to operators (the HTTP API, the console), never journaled.
 */
import type { AgentProgress } from "../agents/index.js";
import type { RunId } from "../ids.js";

/** The step being decided, as far as the agent has streamed it. */
export interface StepProgress {
  readonly step: number;
  readonly text: string;
  readonly calls: readonly { readonly name: string; readonly args: string }[];
  /** Grows with every change (a reader can tell whether anything moved). */
  readonly version: number;
}

export class ProgressBoard {
  private readonly runs = new Map<RunId, { step: number; text: string; calls: { name: string; args: string }[]; version: number }>();
  private version = 0;

  constructor(private readonly listener?: (runId: RunId, step: number, progress: AgentProgress) => void) {}

  /** A sink for one step's progress. */
  sink(runId: RunId, step: number): (p: AgentProgress) => void {
    return (p) => {
      let e = this.runs.get(runId);
      if (e === undefined || e.step !== step || p.type === "restart") {
        e = { step, text: "", calls: [], version: 0 };
        this.runs.set(runId, e);
      }
      if (p.type === "text") e.text += p.delta;
      else if (p.type === "call" && Number.isInteger(p.index) && p.index >= 0 && p.index < 128) {
        while (e.calls.length <= p.index) e.calls.push({ name: "", args: "" });
        const c = e.calls[p.index]!;
        if (p.name !== undefined) c.name = p.name;
        c.args += p.argsDelta;
      }
      e.version = ++this.version;
      try {
        this.listener?.(runId, step, p);
      } catch {
        // A listener's failure is its own.
      }
    };
  }

  /** The step is journaled (or abandoned): nothing in flight to show. */
  clear(runId: RunId): void {
    if (this.runs.delete(runId)) this.version++;
  }

  get(runId: RunId): StepProgress | undefined {
    const e = this.runs.get(runId);
    return e === undefined ? undefined : { step: e.step, text: e.text, calls: e.calls.map((c) => ({ ...c })), version: e.version };
  }
}
