/** What the conversation tests share: a write that asks first, and the code an operation is refused with. */
import { defineTool, isIsoagentError, strictObject, string, type Tool } from "../../src/index.js";

/** A local write that asks for approval, answering what it wrote. */
export const noteTool = defineTool({
  name: "write_note",
  description: "Writes a note.",
  inputSchema: strictObject({ text: string() }),
  sideEffect: "local_mutation",
  permission: "ask",
  timeoutMs: 1000,
  call: async ({ text }) => ({ written: text }),
}) as Tool<never, unknown>;

/** The code an operation was refused with, or "resolved". */
export async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isIsoagentError(e)) return e.code;
    throw e;
  }
  return "resolved";
}
