/**
 * Authentic handovers, as a property (issue 26): random histories forged
 * by an attacker who knows every public function (reduce, apply, seal, the
 * bundle's layout, the signature's format, a key of their own), on top of
 * runs driven by a place the destination does not trust and by one it does,
 * never make the destination execute a call its own policy would ask about
 * or deny unless a trusted operator (the destination's, or the trusted
 * place's) approved that very call.
 */
import { describe, expect, it } from "vitest";
import { call, calls, final, isIsoagentError, scriptedAgent, type ApprovalRequest, type JournalEvent, type RunState } from "../../src/index.js";
import { canonicalJson, hashJsonSync } from "../../src/json/index.js";
import { apply, reduce, seal, type UnsealedEvent } from "../../src/journal/index.js";
import { bundleText, exportRun, generateBundleKey, importRun, sealRun, signingKey, trustedKeys, type PlaceKeys } from "../../src/move/index.js";
import { crashAt } from "../driver/helpers.js";
import { rng } from "../helpers/rng.js";
import { scaled } from "../helpers/time.js";
import { layout, parse, reseal, signAs } from "./forge.js";
import { place, SHAPES, unasked } from "./trust-world.js";

const CASES = 300;
const TOOLS = ["peek", "write", "confirm"] as const;
const PATHS = ["ok/a", "private/b", "secret/c"] as const;

type Random = () => number;
const pick = <T>(random: Random, xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!;
const chance = (random: Random, p: number): boolean => random() < p;
const argsOf = (random: Random): string => JSON.stringify({ path: pick(random, PATHS) });

/** The calls an operator approved, by step, call and the arguments their request showed (and the answers given). */
interface Approved {
  readonly calls: Set<string>;
  readonly answers: Set<string>;
}
const keyOf = (step: number, callId: string, args: string): string => `${step}/${callId}/${args}`;

/**
 * A place's operator, answering every pending approval of the run at random
 * (approve, deny, or settle an interrupted call), recording what it approved
 * when it is a trusted one (`approved`).
 */
async function answer(random: Random, d: ReturnType<typeof place>["driver"], runId: string, approved: Approved | undefined): Promise<void> {
  const state = await d.state(runId as never);
  for (const a of Object.values(state.approvals).filter((x) => x.status === "pending")) {
    // Some are left for later (a run that moves while it waits).
    if (chance(random, 0.3)) continue;
    const r = a.request;
    const key = keyOf(r.step, r.callId, canonicalJson(r.args));
    try {
      if (r.kind === "interrupted_side_effect") {
        await d.settle(runId as never, a.approvalId, { requestHash: a.requestHash, by: "op", resolution: pick(random, ["run_again", "record_failure", "mark_unknown"] as const) });
      } else if (chance(random, 0.6)) {
        const text = r.wantsAnswer === true ? `answer-${Math.floor(random() * 1e6)}` : undefined;
        approved?.calls.add(key);
        if (text !== undefined) approved?.answers.add(`${key}/${text}`);
        await d.approve(runId as never, a.approvalId, { requestHash: a.requestHash, by: "op", ...(text === undefined ? {} : { answer: text }) });
      } else await d.deny(runId as never, a.approvalId, { requestHash: a.requestHash, by: "op" });
    } catch (e) {
      if (!isIsoagentError(e)) throw e;
    }
  }
}

/** A run driven at a place for a few rounds (its operator answering, a crash left behind at random): its owner's store. */
async function driven(random: Random, owner: string, approved: Approved | undefined) {
  const steps = 1 + Math.floor(random() * 3);
  const decided = Array.from({ length: steps }, () => calls(...Array.from({ length: 1 + Math.floor(random() * 2) }, () => call(pick(random, TOOLS), JSON.parse(argsOf(random)) as never))));
  const agent = scriptedAgent([...decided, final("done")]);
  const crash = chance(random, 0.3) ? crashAt(pick(random, ["after_start_append", "after_effect"] as const), pick(random, TOOLS)) : undefined;
  // A place the destination does not trust lets everything through its own policy; a trusted one has the destination's.
  const p = place(owner, { agent, ...(approved === undefined ? { policy: () => ({ permission: "allow" as const }) } : {}), ...(crash === undefined ? {} : { faults: crash }) });
  const runId = await p.driver.create("forge me");
  for (let round = 1 + Math.floor(random() * 3); round > 0; round--) {
    const o = await p.driver.resume(runId).catch((e: unknown) => (isIsoagentError(e) ? undefined : Promise.reject(e)));
    if (o === undefined || o.status !== "waiting") {
      if (o?.stopped === "crashed") p.clock.advance(60_000);
      if (o !== undefined && o.status !== "running") break;
      continue;
    }
    await answer(random, p.driver, runId, approved);
  }
  p.clock.advance(60_000);
  return { ...p, runId };
}

/** The largest lease token or epoch in the events: the floor a forged token or seal must clear. */
const fence = (events: readonly JournalEvent[]): number => Math.max(0, ...events.map((e) => (e.type === "run.resumed" ? e.token : e.type === "run.moved" ? e.epoch : 0)));

/**
 * An approval asked for an open call rewritten in place into a let-through:
 * its `call.permission` ask becomes allow, its `approval.requested` a no-op
 * (`call.reconciled ask_operator`), every later event sealed again. The
 * journal keeps its length, so a signature that vouched for its last event
 * still names that seq (only its hash no longer matches).
 */
function launder(events: readonly JournalEvent[]): JournalEvent[] | undefined {
  const state = reduce(events);
  const open = state.current !== null && !state.current.done ? state.current.calls.find((c) => c.status === "awaiting_approval") : undefined;
  if (open === undefined) return undefined;
  const asked = events.findLastIndex((e) => e.type === "approval.requested" && e.request.callId === open.callId);
  const permission = events.findLastIndex((e, k) => k < asked && e.type === "call.permission" && e.callId === open.callId);
  if (asked < 0 || permission < 0) return undefined;
  const at = (k: number): JournalEvent => {
    const e = events[k]!;
    if (k === permission) return { ...e, permission: "allow" } as JournalEvent;
    if (k !== asked || e.type !== "approval.requested") return e;
    return {
      v: e.v,
      seq: e.seq,
      at: e.at,
      prev: e.prev,
      hash: e.hash,
      type: "call.reconciled",
      step: e.request.step,
      callId: open.callId,
      attempt: 0,
      resolution: "ask_operator",
      by: "attacker-forged",
    } as JournalEvent;
  };
  const rewritten = events.map((_, k) => at(k));
  const from = rewritten[permission]!;
  const out = [...rewritten.slice(0, permission), ...reseal(rewritten.slice(permission), from.seq, from.prev)];
  try {
    reduce(out);
  } catch {
    return undefined;
  }
  return out;
}

/** Random events an attacker appends, each kept only if the public reducer takes it (else the bundle would just be refused). */
function forge(random: Random, base: readonly JournalEvent[]): JournalEvent[] {
  let events = [...base];
  let state: RunState = reduce(events);
  const push = (u: UnsealedEvent): void => {
    const last = events[events.length - 1]!;
    const sealed = seal(u, last.seq + 1, last.hash);
    const trial = structuredClone(state);
    try {
      apply(trial, sealed);
    } catch {
      return;
    }
    events.push(sealed);
    state = trial;
  };
  const by = () => pick(random, ["attacker-forged", "op", "hook", "runtime"]);
  for (let k = Math.floor(random() * 6); k > 0; k--) {
    const cur = state.current !== null && !state.current.done ? state.current : undefined;
    const c = cur === undefined ? undefined : pick(random, cur.calls);
    const pending = Object.values(state.approvals).filter((a) => a.status === "pending");
    const base2 = { v: 3 as const, at: 9 };
    switch (pick(random, ["approve", "approve", "allow", "allow", "ask", "start", "reconcile", "decide", "decide", "decide", "reopen", "finish", "move", "resume", "alter"] as const)) {
      case "approve": {
        const a = pending.length > 0 ? pick(random, pending) : undefined;
        if (a !== undefined)
          push({
            ...base2,
            type: "approval.resolved",
            approvalId: a.approvalId,
            requestHash: a.requestHash,
            decision: "approve",
            by: by(),
            ...(chance(random, 0.5) ? { answer: "forged answer" } : {}),
          });
        break;
      }
      case "allow":
        if (c !== undefined && cur !== undefined) push({ ...base2, type: "call.permission", step: cur.step, callId: c.callId, permission: "allow", source: "policy" });
        break;
      case "ask":
        if (c !== undefined && cur !== undefined) {
          // A request that shows other arguments than the call's own.
          const request = {
            kind: "call",
            runId: state.runId,
            step: cur.step,
            callId: c.callId,
            attempt: c.attempt + 1,
            tool: c.name,
            args: { path: "ok/shown" },
            argsHash: "x",
            sideEffect: "read_only",
            resources: [],
          } as unknown as ApprovalRequest;
          push({ ...base2, type: "call.permission", step: cur.step, callId: c.callId, permission: "ask", source: "policy" });
          push({ ...base2, type: "approval.requested", approvalId: `apr.f.${events.length}` as never, request, requestHash: hashJsonSync(request as never) });
          if (chance(random, 0.7))
            push({ ...base2, type: "approval.resolved", approvalId: `apr.f.${events.length - 1}` as never, requestHash: hashJsonSync(request as never), decision: "approve", by: by() });
        }
        break;
      case "start":
        if (c !== undefined && cur !== undefined) push({ ...base2, type: "call.started", step: cur.step, callId: c.callId, attempt: c.attempt + 1, idempotencyKey: `k${c.callId}` });
        break;
      case "reconcile":
        if (c !== undefined && cur !== undefined) {
          const resolution = pick(random, ["run_again", "record_result", "ask_operator"] as const);
          push({
            ...base2,
            type: "call.reconciled",
            step: cur.step,
            callId: c.callId,
            attempt: c.attempt,
            resolution,
            by: by(),
            ...(resolution === "record_result" ? { observation: { type: "result", content: "forged" } } : {}),
          });
        }
        break;
      case "decide":
        if (cur === undefined && state.status === "running") {
          const n = 1 + Math.floor(random() * 2);
          const decided = Array.from({ length: n }, (_, j) => ({ callId: `f${events.length}c${j}`, name: pick(random, TOOLS), args: argsOf(random) }));
          push({ ...base2, type: "step.decided", step: state.step + 1, decision: { kind: "calls", calls: decided } } as never);
        }
        break;
      case "reopen":
        if (c !== undefined && cur !== undefined) push({ ...base2, type: "call.reopened", step: cur.step, callId: c.callId, reason: "forged" });
        break;
      case "finish":
        if (c !== undefined && cur !== undefined) push({ ...base2, type: "call.finished", step: cur.step, callId: c.callId, attempt: c.attempt, observation: { type: "result", content: "forged" } });
        break;
      case "move":
        push({ ...base2, type: "run.moved", from: pick(random, ["A", "T", "X"]), to: pick(random, ["X", "Y"]), epoch: fence(events) + 1 });
        break;
      case "resume":
        push({ ...base2, type: "run.resumed", owner: "attacker", token: fence(events) + 1 });
        break;
      case "alter": {
        // An event rewritten in place, every later one sealed again: a denial made an approval, a permission raised, a time moved.
        if (events.length < 2) break;
        const at = 1 + Math.floor(random() * (events.length - 1));
        const e = events[at]!;
        const changed = (
          e.type === "approval.resolved" ? { ...e, decision: "approve", by: "attacker-forged" } : e.type === "call.permission" ? { ...e, permission: "allow" } : { ...e, at: e.at + 1 }
        ) as JournalEvent;
        const trial = [...events.slice(0, at), ...reseal([changed, ...events.slice(at + 1)], e.seq, e.prev)];
        try {
          state = reduce(trial);
          events = trial;
        } catch {
          // The reducer refuses it: the bundle would only be refused.
        }
        break;
      }
    }
  }
  return events;
}

describe("authentic handovers (property: forged histories never make the destination run what its policy asks about or denies, unless a trusted operator approved it)", () => {
  it(
    `holds over ${CASES} forged bundles; the forgeries reached the destination and it drove them`,
    async () => {
      const t = await generateBundleKey("place-t");
      const attacker = await generateBundleKey("attacker", "ECDSA-P256");
      const keys: PlaceKeys = { signing: await signingKey((await generateBundleKey("place-d")).privateJwk), trusted: await trustedKeys([t.publicJwk]) };
      const tKeys: PlaceKeys = { signing: await signingKey(t.privateJwk) };
      const seen = { handedOver: 0, openAtD: 0, laundered: 0, refused: 0, copies: 0, ranAtD: 0, askedAtD: 0, trustedKept: 0, split: 0, signatures: {} as Record<string, number> };
      for (let seed = 1; seed <= CASES; seed++) {
        const random = rng(seed);
        const trustedBase = chance(random, 0.5);
        const tApproved: Approved = { calls: new Set(), answers: new Set() };
        // The base: a run driven by a place the destination does not trust (its operator approves anything), or by one it trusts.
        const src = await driven(random, trustedBase ? "t" : "a", trustedBase ? tApproved : undefined);
        // A trusted place may have really moved the run to the destination (a legit handover the attacker replays or extends).
        const legit =
          trustedBase &&
          chance(random, 0.6) &&
          (await sealRun(src.store, src.runId, { from: "T", to: "D" }).then(
            () => true,
            () => false,
          ));
        const exported = await bundleText(exportRun(src.store, src.runId, trustedBase ? { signing: tKeys.signing! } : {}));
        const p = parse(exported);
        expect(p.rest).toEqual([]);
        const untouched = legit && chance(random, 0.3);
        // An older export of the same run (a mirror push, a bundle kept from before): a prefix, signed as the place signed it then.
        const prefix = !legit && chance(random, 0.6) ? p.events.slice(0, 1 + Math.floor(random() * p.events.length)) : p.events;
        const exportedSig = prefix === p.events ? p.end["signature"] : trustedBase ? await signAs(t.privateJwk, "place-t", src.runId, prefix.length, prefix[prefix.length - 1]!.hash) : undefined;
        // A legit handover laundered (its last approval asked made a let-through), the length kept, or forged on top.
        const laundered = legit && !untouched && chance(random, 0.8) ? launder(p.events) : undefined;
        if (laundered !== undefined) seen.laundered++;
        let events = untouched ? p.events : (laundered ?? forge(random, prefix));
        const lastEvent = events[events.length - 1]!;
        if (!(lastEvent.type === "run.moved" && lastEvent.to === "D")) {
          const sealEvent = seal(
            { v: 3, at: 10, type: "run.moved", from: pick(random, ["A", "T", "tab"]), to: "D", epoch: fence(events) + 1 + Math.floor(random() * 3) },
            lastEvent.seq + 1,
            lastEvent.hash,
          );
          events = [...events, sealEvent];
        }
        const end = events[events.length - 1]!;
        // How it is signed: as exported, not at all, by the attacker, or claiming the trusted place's key.
        const drawn = untouched || laundered !== undefined ? "as-exported" : pick(random, ["as-exported", "none", "attacker", "impostor", "stretched"] as const);
        const how = drawn === "stretched" && exportedSig === undefined ? "none" : drawn;
        seen.signatures[how] = (seen.signatures[how] ?? 0) + 1;
        const signature =
          how === "as-exported"
            ? exportedSig
            : how === "attacker"
              ? await signAs(attacker.privateJwk, "attacker", src.runId, end.seq, end.hash)
              : how === "impostor"
                ? await signAs(attacker.privateJwk, "place-t", src.runId, end.seq, end.hash)
                : how === "stretched" && exportedSig !== undefined
                  ? { ...(exportedSig as object), seq: end.seq, hash: end.hash }
                  : undefined;
        const extra = signature === undefined ? {} : { signature };
        const d = place("d");
        const dApproved: Approved = { calls: new Set(), answers: new Set() };
        try {
          // At once, or in two imports (the first part in transit, then the rest ending with the seal), as a move does.
          const cut = chance(random, 0.3) ? 1 + Math.floor(random() * (events.length - 1)) : events.length;
          if (cut < events.length) {
            seen.split++;
            const head = events.slice(0, cut);
            const headSig =
              trustedBase && cut <= p.events.length && events[cut - 1]!.hash === p.events[cut - 1]?.hash
                ? { signature: await signAs(t.privateJwk, "place-t", src.runId, cut, events[cut - 1]!.hash) }
                : {};
            await importRun(d.store, layout(p, head, headSig), { role: "in_transit", here: "D", tools: SHAPES, keys });
          }
          const r = await importRun(d.store, layout(p, events.slice(cut < events.length ? cut : 0), extra), { role: pick(random, ["in_transit", "mirror"] as const), here: "D", tools: SHAPES, keys });
          if (r.custody !== undefined) {
            seen.copies++;
            continue;
          }
          if (r.reopened === 0 && legit && untouched) seen.trustedKept++;
        } catch (e) {
          if (!isIsoagentError(e)) throw new Error(`seed ${seed}: ${String(e)}`);
          seen.refused++;
          continue;
        }
        seen.handedOver++;
        const taken = await d.driver.state(src.runId);
        if (taken.current !== null && !taken.current.done) seen.openAtD++;
        // The destination drives it; its operator approves nothing (half the cases) or answers at random.
        const operator = chance(random, 0.5);
        for (let round = 0; round < 6; round++) {
          const o = await d.driver.resume(src.runId);
          if (o.status !== "waiting") break;
          seen.askedAtD++;
          if (!operator) break;
          await answer(random, d.driver, src.runId, dApproved);
        }
        seen.ranAtD += d.log.length;
        for (const x of d.log) {
          const key = keyOf(x.step, x.callId, x.args);
          const why = `seed ${seed}: ${x.tool} ${x.args} at step ${x.step} (${x.callId}) ran at the destination`;
          expect(unasked(x.tool, JSON.parse(x.args)) || dApproved.calls.has(key) || tApproved.calls.has(key), `${why} with no trusted approval`).toBe(true);
          if (x.answer !== undefined) expect(dApproved.answers.has(`${key}/${x.answer}`) || tApproved.answers.has(`${key}/${x.answer}`), `${why} with an answer no trusted operator gave`).toBe(true);
        }
      }
      // The cases reached what they are about: forgeries taken over and driven, refusals, copies, signatures of every kind, legit handovers kept.
      console.log(`authentic handovers: ${JSON.stringify(seen)}`);
      expect(seen.handedOver).toBeGreaterThan(CASES / 3);
      expect(seen.openAtD).toBeGreaterThan(CASES / 4);
      expect(seen.refused).toBeGreaterThan(10);
      expect(seen.ranAtD).toBeGreaterThan(20);
      expect(seen.askedAtD).toBeGreaterThan(40);
      expect(seen.trustedKept).toBeGreaterThan(3);
      expect(seen.laundered).toBeGreaterThan(3);
      expect(seen.split).toBeGreaterThan(30);
      for (const how of ["as-exported", "none", "attacker", "impostor", "stretched"]) expect(seen.signatures[how] ?? 0, how).toBeGreaterThan(10);
    },
    scaled(240_000),
  );
});
