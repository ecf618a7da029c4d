// The console's conversation pane (issue 29): a conversation run's messages
// and answers as chat bubbles, built from its journal as it streams in, and
// a message box with the controls of a turn (send, stop, regenerate, close).
// Untrusted text goes through textContent (el's children are text nodes).
import type { JournalEvent, RunStatus } from "../src/journal/index.js";
import type { JsonValue } from "../src/json/index.js";

/** What the pane needs of the page: its elements, and how it posts and reports. */
export interface ChatPage {
  $<T extends HTMLElement = HTMLElement>(id: string): T;
  el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> | null, ...children: (Node | string)[]): HTMLElementTagNameMap[K];
  post(path: string, body: unknown): Promise<unknown>;
  /** The run followed now, or null. */
  selected(): string | null;
  /** Shows a refusal of an action on the run. */
  failed(verb: string, e: unknown, runId: string): void;
  /** Reads the run again (its status moves the buttons). */
  reload(): Promise<void>;
}

/** What the pane reads of the run's view (src/http/wire.ts). */
export interface ChatRun {
  readonly runId: string;
  readonly status: RunStatus;
  readonly conversation?: { readonly turn: number; readonly open: boolean };
}

/** An answer as a person reads it: a text as it is, an object's summary, else its JSON. */
function answerText(output: JsonValue): string {
  if (typeof output === "string") return output;
  if (output !== null && typeof output === "object" && !Array.isArray(output) && typeof output["summary"] === "string") return output["summary"];
  return JSON.stringify(output);
}

const randomId = (): string => "msg-" + Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, "0")).join("");

/** Sets the pane up on the page; the page calls what it answers as the run is followed. */
export function chatPane(page: ChatPage) {
  const { $, el } = page;
  const bubbles = () => $("bubbles");
  const bubble = (kind: string, text: string, note?: string) => {
    const li = el("li", { class: "bubble " + kind, "data-kind": kind }, el("div", { class: "text" }, text));
    if (note !== undefined) li.append(el("div", { class: "note" }, note));
    bubbles().append(li);
    li.scrollIntoView({ block: "nearest" });
  };
  const control = async (verb: string, path: string, body: unknown) => {
    const runId = page.selected();
    if (!runId) return;
    $("chat-status").textContent = "";
    try {
      await page.post("/runs/" + encodeURIComponent(runId) + path, body);
    } catch (e) {
      page.failed(verb, e, runId);
    }
    await page.reload();
  };
  $("message-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const box = $<HTMLTextAreaElement>("message");
    const text = box.value.trim();
    if (!text) return;
    box.value = "";
    void control("send the message", "/messages", { id: randomId(), text, by: "console" });
  });
  $("stop-turn").addEventListener("click", () => void control("stop the turn", "/stop", { by: "console" }));
  $("regenerate").addEventListener("click", () => void control("regenerate the answer", "/regenerate", { by: "console" }));
  $("close-chat").addEventListener("click", () => void control("close the conversation", "/close", { by: "console" }));

  return {
    /** A new run is followed: no bubbles yet. */
    reset(): void {
      bubbles().replaceChildren();
      $("chat").hidden = true;
    },
    /** One event of the followed run's journal, in order. */
    event(e: JournalEvent): void {
      if (e.type === "user.message") bubble("user", e.text, e.files === undefined ? undefined : e.files.map((f) => f.name ?? f.mediaType).join(", "));
      else if (e.type === "step.decided" && e.decision.kind === "final") bubble("agent", answerText(e.decision.output));
      else if (e.type === "step.decided" && e.decision.text) bubble("agent thinking", e.decision.text);
      else if (e.type === "turn.ended" && e.reason === "stopped") bubble("stopped", e.partial ? e.partial + " …" : "(stopped)", "stopped by " + (e.by ?? "?"));
      else if (e.type === "turn.ended" && e.reason !== "answered") bubble("stopped", e.detail ?? e.reason, "the turn ended: " + e.reason);
      else if (e.type === "turn.regenerated") {
        // The answer after the last message is superseded: shown struck through, the journal keeps it.
        const all = [...bubbles().children];
        for (let k = all.length - 1; k >= 0 && all[k]!.getAttribute("data-kind") !== "user"; k--) all[k]!.classList.add("superseded");
      } else if (e.type === "run.closed") bubble("stopped", "closed by " + e.by + (e.reason ? ": " + e.reason : ""));
    },
    /** The run's view: whether the pane shows, and which controls it offers now. */
    run(run: ChatRun, blocked: string): void {
      const c = run.conversation;
      $("chat").hidden = c === undefined;
      if (c === undefined) return;
      const ended = run.status === "completed" || run.status === "failed" || run.status === "cancelled";
      const idle = run.status === "idle" && blocked === "";
      $<HTMLButtonElement>("send").disabled = !idle;
      $<HTMLTextAreaElement>("message").disabled = !idle;
      $<HTMLButtonElement>("stop-turn").disabled = !(c.open && !ended && blocked === "");
      $<HTMLButtonElement>("regenerate").disabled = !(idle && c.turn > 0);
      $<HTMLButtonElement>("close-chat").disabled = !idle;
      $("chat-status").textContent = ended ? "This conversation has ended." : c.open ? "The agent is on turn " + c.turn + "." : c.turn === 0 ? "Write the first message." : "Your turn.";
    },
  };
}
