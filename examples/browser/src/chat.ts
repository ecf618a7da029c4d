/**
 * The example's conversations (issue 29): "Start a conversation" makes a
 * conversation run, and the page shows it as the console does, with the
 * console's own chat pane (console/chat.ts): the messages and answers as
 * bubbles, and a message box with the controls of a turn. What the pane
 * would post to the HTTP API is answered by this tab's driver instead:
 * send and regenerate then drive the turn here, stop asks the session
 * driving it to stop, close ends the conversation.
 */
import { chatPane } from "../../../console/chat.js";
import type { Driver, JournalEvent, RunId, RunState } from "../../../src/index.js";

/** What the chat needs of the page. */
export interface ExampleChatPage {
  readonly driver: Driver;
  el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Record<string, string>, ...children: (Node | string)[]): HTMLElementTagNameMap[K];
  /** The run the page shows. */
  selected(): RunId | undefined;
  /** Drives a run in this tab (the page's own loop). */
  drive(runId: RunId): Promise<void>;
  /** Renders the page again. */
  refresh(): Promise<void>;
}

/** Who the example's user is, in the journal. */
const BY = "you";

export interface ExampleChat {
  /** Shows the run: its events since the last shown, and the controls its state allows (`blocked` names why none is, or is empty). */
  show(runId: RunId, state: RunState, events: readonly JournalEvent[], blocked: string): void;
}

export function exampleChat(page: ExampleChatPage): ExampleChat {
  const $ = <T extends HTMLElement = HTMLElement>(id: string): T => document.getElementById(id) as T;
  const { driver } = page;
  /** The pane's four posts, as `/runs/:id/<verb>`, answered by the driver. */
  const post = async (path: string, body: unknown): Promise<unknown> => {
    const [, , id, verb] = path.split("/");
    const runId = decodeURIComponent(id ?? "") as RunId;
    $("chat-error").textContent = "";
    switch (verb) {
      case "messages": {
        const m = body as { id: string; text: string };
        const sent = await driver.send(runId, { id: m.id, text: m.text }, { by: BY });
        void page.drive(runId);
        return sent;
      }
      case "stop":
        return driver.stopTurn(runId, { by: BY });
      case "regenerate": {
        const state = await driver.regenerate(runId, { by: BY });
        void page.drive(runId);
        return state;
      }
      case "close":
        return driver.close(runId, { by: BY });
      default:
        throw new Error(`no such control: ${path}`);
    }
  };
  const pane = chatPane({
    $,
    el: (tag, attrs, ...children) => page.el(tag, attrs ?? {}, ...children),
    post,
    selected: () => page.selected() ?? null,
    failed: (verb, e) => void ($("chat-error").textContent = `Could not ${verb}: ${e instanceof Error ? e.message : String(e)}`),
    reload: page.refresh,
  });
  let shownRun: RunId | undefined;
  let shownSeq = 0;
  return {
    show(runId, state, events, blocked) {
      if (runId !== shownRun) {
        pane.reset();
        $("chat-error").textContent = "";
        shownRun = runId;
        shownSeq = 0;
      }
      for (const e of events) {
        if (e.seq <= shownSeq) continue;
        pane.event(e);
        shownSeq = e.seq;
      }
      pane.run({ runId, status: state.status, ...(state.conversation === undefined ? {} : { conversation: state.conversation }) }, blocked);
    },
  };
}
