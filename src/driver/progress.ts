/**
 * What a run is doing right now, per run: the step a streaming agent is
 * deciding, as far as it has streamed it, and the progress its running
 * tools report (`ToolContext.progress`). Shown to operators (the HTTP API,
 * the console), never journaled.
 */
import type { AgentProgress } from "../agents/index.js";
import type { CallProgress, CallProgressSink } from "../call/context.js";
import type { CallId, RunId } from "../ids.js";

export type { CallProgress } from "../call/context.js";

/** A running tool's progress, as the driver's `onProgress` hears it. */
export interface ToolProgressReport extends CallProgress {
  readonly type: "tool";
}

/** What the driver's `onProgress` hears: an agent's streaming, or a running tool's progress. */
export type RunProgress = AgentProgress | ToolProgressReport;

/** The step in progress: what the agent has streamed of its decision, and what its running calls report. */
export interface StepProgress {
  readonly step: number;
  readonly text: string;
  readonly calls: readonly { readonly name: string; readonly args: string }[];
  /** The latest report of each call still running that reported (ToolContext.progress). */
  readonly tools: readonly CallProgress[];
  /** Grows with every change (a reader can tell whether anything moved). */
  readonly version: number;
}

interface Entry {
  step: number;
  text: string;
  calls: { name: string; args: string }[];
  tools: Map<CallId, CallProgress>;
  version: number;
}

export class ProgressBoard implements CallProgressSink {
  private readonly runs = new Map<RunId, Entry>();
  private version = 0;

  constructor(private readonly listener?: (runId: RunId, step: number, progress: RunProgress) => void) {}

  private entry(runId: RunId, step: number, fresh = false): Entry {
    let e = this.runs.get(runId);
    if (e === undefined || e.step !== step || fresh) {
      e = { step, text: "", calls: [], tools: new Map(), version: 0 };
      this.runs.set(runId, e);
    }
    return e;
  }

  private tell(runId: RunId, step: number, p: RunProgress): void {
    try {
      this.listener?.(runId, step, p);
    } catch {
      // A listener's failure is its own.
    }
  }

  /** A sink for one step's progress. */
  sink(runId: RunId, step: number): (p: AgentProgress) => void {
    return (p) => {
      const e = this.entry(runId, step, p.type === "restart");
      if (p.type === "text") e.text += p.delta;
      else if (p.type === "call" && Number.isInteger(p.index) && p.index >= 0 && p.index < 128) {
        while (e.calls.length <= p.index) e.calls.push({ name: "", args: "" });
        const c = e.calls[p.index]!;
        if (p.name !== undefined) c.name = p.name;
        c.args += p.argsDelta;
      }
      e.version = ++this.version;
      this.tell(runId, step, p);
    };
  }

  /** Records a running call's report (already checked and cleaned). */
  tool(runId: RunId, step: number, report: CallProgress): void {
    const e = this.entry(runId, step);
    e.tools.set(report.callId, report);
    e.version = ++this.version;
    this.tell(runId, step, { type: "tool", ...report });
  }

  /** A call ended: its progress is no longer in flight. */
  endCall(runId: RunId, callId: CallId): void {
    const e = this.runs.get(runId);
    if (e === undefined || !e.tools.delete(callId)) return;
    e.version = ++this.version;
    if (e.tools.size === 0 && e.text === "" && e.calls.length === 0) this.runs.delete(runId);
  }

  /** The step is journaled (or abandoned): nothing in flight to show. */
  clear(runId: RunId): void {
    if (this.runs.delete(runId)) this.version++;
  }

  get(runId: RunId): StepProgress | undefined {
    const e = this.runs.get(runId);
    return e === undefined ? undefined : { step: e.step, text: e.text, calls: e.calls.map((c) => ({ ...c })), tools: [...e.tools.values()], version: e.version };
  }
}
