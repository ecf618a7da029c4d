/**
 * A conversation over the runs API (issue 29): create, messages with
 * Idempotency-Key semantics, the controls of a turn, and every refusal with
 * its code and status, nothing appended.
 */
import { describe, expect, it } from "vitest";
import { call, calls, createDriver, defineTool, final, memoryStore, scriptedAgent, strictObject, string, type Tool } from "../../src/index.js";
import { createHttpApp, driverBackend } from "../../src/http/index.js";
import { until } from "../helpers/time.js";
import { noteTool } from "../helpers/conversation.js";

const TOKEN = "t0k3n-for-tests-0123456789";
const auth = { authorization: `Bearer ${TOKEN}` };
const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: "POST",
  headers: { ...auth, "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

const write = noteTool;

function world(script: Parameters<typeof scriptedAgent>[0]) {
  const driver = createDriver({ store: memoryStore(), agent: scriptedAgent(script), tools: [write] });
  const app = createHttpApp({ backend: driverBackend(driver), tokens: () => [TOKEN] });
  // A status the store shows, then the drive that wrote it let go of the run (its lease released, its renewal timer gone): nothing of it outlives the test.
  const status = async (runId: string, want: string) => {
    await until(`run ${runId} ${want}`, async () => ((await driver.state(runId as never)).status === want ? true : undefined));
    await until(`run ${runId} let go`, async () => ((await driver.lease(runId as never)) === null ? true : undefined));
  };
  return { driver, app, status };
}

async function refusal(res: Response): Promise<[number, string]> {
  const body = (await res.json()) as { error?: { code: string } };
  return [res.status, body.error?.code ?? "none"];
}

describe("a conversation over HTTP", () => {
  it("is created idle, answers each message, and takes a retried POST once (Idempotency-Key)", async () => {
    const { driver, app, status } = world([final("hello"), final("again")]);
    const { runId } = (await (await app.request("/runs", post({ task: "Be brief.", conversation: true }))).json()) as { runId: string };
    await status(runId, "idle");
    const listed = (await (await app.request("/runs?status=idle", { headers: auth })).json()) as { runs: { runId: string }[] };
    expect(listed.runs.map((r) => r.runId)).toEqual([runId]);

    const first = await app.request(`/runs/${runId}/messages`, post({ text: "hi" }, { "idempotency-key": "m1" }));
    expect(first.status).toBe(202);
    const { seq } = (await first.json()) as { seq: number };
    // Mid-turn (or after it): the same message again appends nothing.
    const retried = await app.request(`/runs/${runId}/messages`, post({ id: "m1", text: "hi" }));
    expect(retried.status).toBe(200);
    expect(retried.headers.get("idempotent-replayed")).toBe("true");
    expect(await retried.json()).toEqual({ seq, duplicate: true });
    await status(runId, "idle");
    expect((await driver.state(runId as never)).output).toBe("hello");
    expect(await refusal(await app.request(`/runs/${runId}/messages`, post({ id: "m1", text: "other" })))).toEqual([409, "MESSAGE_ID_REUSED"]);

    expect((await app.request(`/runs/${runId}/regenerate`, post({}))).status).toBe(202);
    await until("the regenerated answer", async () => ((await driver.state(runId as never)).output === "again" ? true : undefined));
    await status(runId, "idle");
    expect((await app.request(`/runs/${runId}/close`, post({ reason: "done" }))).status).toBe(200);
    expect((await driver.state(runId as never)).closed).toEqual({ by: "user (API)", reason: "done" });
    expect((await driver.events(runId as never)).filter((e) => e.type === "user.message")).toHaveLength(1);
  });

  it("stops a turn waiting for an approval, and refuses a message in the middle of one", async () => {
    const { driver, app, status } = world([calls(call("write_note", { text: "X" })), final("ok")]);
    const { runId } = (await (await app.request("/runs", post({ task: null, conversation: true }))).json()) as { runId: string };
    expect((await app.request(`/runs/${runId}/messages`, post({ id: "m1", text: "write" }))).status).toBe(202);
    await status(runId, "waiting");
    expect(await refusal(await app.request(`/runs/${runId}/messages`, post({ id: "m2", text: "and" })))).toEqual([409, "TURN_IN_PROGRESS"]);
    expect(await refusal(await app.request(`/runs/${runId}/close`, post({})))).toEqual([409, "TURN_IN_PROGRESS"]);
    const stopped = await app.request(`/runs/${runId}/stop`, post({ by: "ana" }));
    expect(await stopped.json()).toEqual({ status: "idle" });
    expect((await driver.events(runId as never)).filter((e) => e.type === "turn.ended")).toMatchObject([{ reason: "stopped", by: "ana" }]);
  });

  it("refuses bad input with a code and a 4xx, appending nothing", async () => {
    const { driver, app, status } = world([final("done")]);
    const { runId } = (await (await app.request("/runs", post({ task: null, conversation: true }))).json()) as { runId: string };
    const task = ((await (await app.request("/runs", post({ task: "a task" }))).json()) as { runId: string }).runId;
    await status(task, "completed");
    const cases: [string, RequestInit, [number, string]][] = [
      [`/runs/${runId}/messages`, post({ text: "no id" }), [400, "MESSAGE_INVALID"]],
      [`/runs/${runId}/messages`, post({ id: "a", text: "x" }, { "idempotency-key": "b" }), [400, "MESSAGE_INVALID"]],
      [`/runs/${runId}/messages`, post({ id: "a b", text: "x" }), [400, "INVALID_BODY"]],
      [`/runs/${runId}/messages`, post({ id: "a", text: "" }), [400, "MESSAGE_INVALID"]],
      [`/runs/${runId}/messages`, post({ id: "a", text: "x", extra: 1 }), [400, "INVALID_BODY"]],
      [`/runs/${runId}/messages`, post({ id: "a", text: "x", metadata: { m: "y".repeat(5000) } }), [413, "MESSAGE_TOO_LARGE"]],
      [`/runs/${runId}/messages`, post({ id: "a", text: "x", files: [{ mediaType: "text/plain", data: "not base64!" }] }), [400, "MESSAGE_INVALID"]],
      [`/runs/${runId}/messages`, post({ id: "a", text: "x", files: [{ mediaType: "nope", data: "eA==" }] }), [400, "MESSAGE_INVALID"]],
      [`/runs/${task}/messages`, post({ id: "a", text: "x" }), [409, "NOT_A_CONVERSATION"]],
      [`/runs/${task}/stop`, post({}), [409, "NOT_A_CONVERSATION"]],
      [`/runs/run_nobody/messages`, post({ id: "a", text: "x" }), [404, "RUN_NOT_FOUND"]],
      [`/runs/${runId}/regenerate`, post({}), [409, "NO_TURN"]],
    ];
    for (const [path, init, want] of cases) expect([path, await refusal(await app.request(path, init))]).toEqual([path, want]);
    expect(await driver.events(runId as never)).toHaveLength(1);
  });

  it("takes a file as an artifact the run's journal names, served back through the run", async () => {
    const { driver, app, status } = world([final("seen")]);
    const { runId } = (await (await app.request("/runs", post({ task: null, conversation: true }))).json()) as { runId: string };
    const bytes = new TextEncoder().encode("hello file");
    const data = btoa(String.fromCharCode(...bytes));
    expect((await app.request(`/runs/${runId}/messages`, post({ id: "f1", text: "", files: [{ mediaType: "text/plain", data, name: "a.txt" }] }))).status).toBe(202);
    await status(runId, "idle");
    const [message] = (await driver.events(runId as never)).filter((e) => e.type === "user.message");
    const file = (message as Extract<typeof message, { type: "user.message" }>).files![0]!;
    expect(file).toMatchObject({ mediaType: "text/plain", size: bytes.length, name: "a.txt" });
    const served = await app.request(`/runs/${runId}/artifacts/${file.sha256}`, { headers: auth });
    expect(await served.text()).toBe("hello file");
  });
  it("takes an output schema with a run and with a message, and refuses one the compiler does not take (400, nothing made)", async () => {
    const { driver, app, status } = world([final('{"n":1}'), final("hi")]);
    const schema = { type: "object", properties: { n: { type: "integer" } }, required: ["n"] };
    expect(await refusal(await app.request("/runs", post({ task: "t", outputSchema: { type: "nope" } })))).toEqual([400, "OUTPUT_SCHEMA_INVALID"]);
    expect(await driver.listRuns()).toEqual([]);
    const { runId } = (await (await app.request("/runs", post({ task: "Count.", conversation: true, outputSchema: schema }))).json()) as { runId: string };
    await status(runId, "idle");
    expect(await refusal(await app.request(`/runs/${runId}/messages`, post({ id: "m0", text: "x", outputSchema: { minimum: "no" } })))).toEqual([400, "OUTPUT_SCHEMA_INVALID"]);
    expect((await app.request(`/runs/${runId}/messages`, post({ id: "m1", text: "count" }))).status).toBe(202);
    await status(runId, "idle");
    expect((await driver.state(runId as never)).output).toEqual({ n: 1 });
    expect((await app.request(`/runs/${runId}/messages`, post({ id: "m2", text: "say hi", outputSchema: { type: "string" } }))).status).toBe(202);
    await status(runId, "idle");
    expect((await driver.state(runId as never)).output).toBe("hi");
    expect((await driver.events(runId as never)).filter((e) => e.type === "user.message").map((e) => e.messageId)).toEqual(["m1", "m2"]);
  });
});
