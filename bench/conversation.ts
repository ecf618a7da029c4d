/**
 * `npm run bench -- conversation`: a conversation's time per turn against
 * its length. Conversations are built to 10 and to 1,000 turns (the OpenAI
 * Responses adapter over an in-process transport answering each message
 * with a final text, test/helpers/fake-provider.ts; the memory store; one
 * driver, as a server holds one), with a context budget (the trimmer,
 * bench/trimmed-run.ts) and without one. Then the two lengths are sampled
 * in alternating rounds, each sample one more turn (a message sent and the
 * turn driven to its answer).
 *
 * Without a budget the request itself grows with the transcript (the model
 * is shown the whole conversation), so isoagent's own time is the turn's
 * time less the fake provider's (its parse of the request and its answer)
 * and less a same-run `JSON.stringify` of the same request body; the raw
 * figure is reported beside it.
 *
 * The peer row: the AI SDK's documented persistence pattern (load every
 * message, convertToModelMessages, streamText, save every message;
 * bench/peers/chat.ts) against the same fake provider, sampled in the same
 * rounds at the same two lengths. It has no context budget: its request
 * holds the whole conversation, as isoagent's does without one.
 */
import { openaiAgent } from "../src/agents/openai/index.js";
import { createDriver, memoryStore, type Driver, type RunId } from "../src/index.js";
import type { ModelRequest } from "../src/agents/model/transport.js";
import { fakeResponses } from "../test/helpers/fake-provider.js";
import { alternate, formatNs, median, ratioOf } from "./harness.js";
import { result, type Result } from "./results.js";
import { TRIMMED } from "./trimmed-run.js";
import { aiSdkChat } from "./peers/chat.js";

interface Chat {
  readonly driver: Driver;
  readonly runId: RunId;
  turn: number;
  /** The provider's time in the last turn, and its request's body. */
  last: { providerNs: number; body: unknown };
}

async function chatOf(budget: boolean, turns: number): Promise<Chat> {
  const provider = fakeResponses(() => ({ text: "Noted: the thing you said, and what it means for the notes." }));
  const chat = { turn: 0, last: { providerNs: 0, body: null as unknown } } as Chat;
  const transport = async (request: ModelRequest, init: { signal?: unknown }) => {
    const t = performance.now();
    const res = await provider.transport(request, init as never);
    chat.last = { providerNs: (performance.now() - t) * 1e6, body: request.body };
    return res;
  };
  const driver = createDriver({
    store: memoryStore(),
    agent: openaiAgent({ model: "gpt-fake", transport, instructions: "You keep the user's notes." }),
    tools: [],
    limits: { maxSteps: 0 },
    ...(budget ? { context: TRIMMED } : {}),
  });
  const runId = await driver.create("You keep the user's notes. Be brief.", { conversation: true });
  Object.assign(chat, { driver, runId });
  for (let k = 0; k < turns; k++) await turn(chat);
  return chat;
}

/** One turn: a message sent, and the turn driven to its answer. Its time, the provider's, and the request's stringify. */
async function turn(chat: Chat): Promise<{ ns: number; providerNs: number; stringifyNs: number }> {
  const n = ++chat.turn;
  const t = performance.now();
  await chat.driver.send(chat.runId, { id: `m${n}`, text: `Message ${n}: please note that item ${n} matters, and why.` });
  const out = await chat.driver.resume(chat.runId);
  const ns = (performance.now() - t) * 1e6;
  if (out.status !== "idle") throw new Error(`conversation: turn ${n} ended ${out.status}`);
  const s = performance.now();
  JSON.stringify(chat.last.body);
  return { ns, providerNs: chat.last.providerNs, stringifyNs: (performance.now() - s) * 1e6 };
}

export interface ConversationFigure {
  readonly budget: boolean;
  readonly turns: number;
  readonly turnNs: number;
  readonly ownNs: number;
}

export interface ConversationFigures {
  readonly rows: ConversationFigure[];
  readonly budgetRatio: ReturnType<typeof ratioOf>;
  readonly ownRatio: ReturnType<typeof ratioOf>;
  readonly rawRatio: ReturnType<typeof ratioOf>;
  /** The AI SDK's persistence pattern at the two lengths, and its time per turn ÷ isoagent's at the longer, with a budget and without. */
  readonly peer: { readonly version: string; readonly turnNs: readonly [number, number]; readonly overBudget: ReturnType<typeof ratioOf>; readonly overNone: ReturnType<typeof ratioOf> };
}

export async function benchConversation(options: { quick?: boolean } = {}): Promise<ConversationFigures> {
  const long = options.quick ? 300 : 1000;
  const chats = { b10: await chatOf(true, 10), b1000: await chatOf(true, long), n10: await chatOf(false, 10), n1000: await chatOf(false, long) };
  const peers = { p10: await aiSdkChat(10), p1000: await aiSdkChat(long) };
  const own: Record<string, number[]> = { b10: [], b1000: [], n10: [], n1000: [] };
  const warm = 2;
  const samples = await alternate((options.quick ? 8 : 20) + warm, ["b10", "b1000", "n10", "n1000", "p10", "p1000"] as const, async (name) => {
    if (name === "p10" || name === "p1000") return (await peers[name].turn()).ns;
    const r = await turn(chats[name]);
    own[name]!.push(r.ns - r.providerNs - r.stringifyNs);
    return r.ns;
  });
  const s = (k: keyof typeof chats | keyof typeof peers) => samples[k].slice(warm);
  const o = (k: keyof typeof chats) => own[k]!.slice(warm);
  return {
    rows: [
      { budget: true, turns: 10, turnNs: median(s("b10")), ownNs: median(o("b10")) },
      { budget: true, turns: long, turnNs: median(s("b1000")), ownNs: median(o("b1000")) },
      { budget: false, turns: 10, turnNs: median(s("n10")), ownNs: median(o("n10")) },
      { budget: false, turns: long, turnNs: median(s("n1000")), ownNs: median(o("n1000")) },
    ],
    budgetRatio: ratioOf(s("b1000"), s("b10")),
    ownRatio: ratioOf(o("n1000"), o("n10")),
    rawRatio: ratioOf(s("n1000"), s("n10")),
    peer: { version: peers.p10.version, turnNs: [median(s("p10")), median(s("p1000"))], overBudget: ratioOf(s("p1000"), s("b1000")), overNone: ratioOf(s("p1000"), s("n1000")) },
  };
}

export function printConversation(f: ConversationFigures): void {
  console.log("conversation: time per turn (a message sent, the turn driven to its answer) at its length; Responses adapter over an in-process transport, memory store, one driver");
  console.log("| context budget | turns | per turn | isoagent's own (less the provider and the request's stringify) |");
  console.log("|---|---:|---:|---:|");
  for (const r of f.rows) console.log(`| ${r.budget ? "trimmer, 4,000 tokens" : "none"} | ${r.turns} | ${formatNs(r.turnNs)} | ${formatNs(r.ownNs)} |`);
  const long = f.rows[1]!.turns;
  console.log(`| AI SDK persistence pattern (${f.peer.version}), no budget | 10 | ${formatNs(f.peer.turnNs[0])} | |`);
  console.log(`| AI SDK persistence pattern, no budget | ${long} | ${formatNs(f.peer.turnNs[1])} | |`);
  for (const x of conversationResults(f)) console.log(`${x.id}: ${x.ratio} (goal ${x.goal}) ${x.met ? "met" : "NOT met"}`);
}

export function conversationResults(f: ConversationFigures): Result[] {
  const long = f.rows[1]!.turns;
  return [
    result("conversation.flat-budget", `time per turn at turn ${long} ÷ at turn 10, with a context budget (the trimmer), Responses adapter, memory store`, f.budgetRatio.ratio, "<= 1.25", {
      spread: [f.budgetRatio.min, f.budgetRatio.max],
    }),
    result(
      "conversation.flat-own",
      `isoagent's own time per turn (less the fake provider's and a same-run JSON.stringify of the request) at turn ${long} ÷ at turn 10, without a context budget`,
      f.ownRatio.ratio,
      "<= 1.25",
      { spread: [f.ownRatio.min, f.ownRatio.max], raw: { ratio: Math.round(f.rawRatio.ratio * 1000) / 1000, spread: [f.rawRatio.min, f.rawRatio.max] } },
    ),
    result(
      "conversation.peer",
      `the AI SDK's persistence pattern (load every message, convertToModelMessages, streamText, save every message; ${f.peer.version}) per turn ÷ isoagent's with a context budget, at turn ${long}, the same fake provider in-process`,
      f.peer.overBudget.ratio,
      ">= 5",
      {
        spread: [f.peer.overBudget.min, f.peer.overBudget.max],
        peerNs: f.peer.turnNs.map(Math.round),
        noBudget: { ratio: Math.round(f.peer.overNone.ratio * 1000) / 1000, spread: [f.peer.overNone.min, f.peer.overNone.max] },
      },
    ),
  ];
}
