/**
 * Structured final output (v5): a run, or a conversation's turn, whose
 * answer must match a JSON Schema. The schema is given at creation
 * (`create(task, { outputSchema })`, for a task and every turn) or with a
 * message (`send(runId, { ..., outputSchema })`, for its turn), checked
 * and journaled; the session checks each final answer against it with the
 * compiler of tools' arguments (the same refusal text, the same failure
 * limit), and the model adapters hand it to the provider's
 * structured-output mode.
 */
import { canonicalJson, cloneJson, type JsonValue } from "../json/index.js";
import type { RunState } from "../journal/index.js";
import { compileSchema } from "../schema/index.js";
import { outputChecker, type OutputCheck } from "../tools/check.js";
import { isStandardSchema, standardJsonSchema } from "../tools/standard.js";
import { DriverError } from "./types.js";

/** The most characters of JSON an output schema may take. */
export const OUTPUT_SCHEMA_MAX_CHARS = 65_536;

/** An output schema as an application gives it: a JSON Schema (a builder's included) or a Standard Schema (zod 4, valibot, arktype) with Standard JSON Schema. */
export type OutputSchema = JsonValue | { readonly "~standard": unknown };

const invalid = (why: string): DriverError => new DriverError("OUTPUT_SCHEMA_INVALID", `the output schema ${why}`);

/** The checks compiled lately, by the schema's canonical JSON: a run's schema is compiled once, not per answer. */
const compiled = new Map<string, (output: JsonValue) => OutputCheck>();
const COMPILED_KEPT = 32;

function checkerOf(schema: JsonValue): (output: JsonValue) => OutputCheck {
  const key = canonicalJson(schema);
  let check = compiled.get(key);
  if (check === undefined) {
    check = outputChecker(compileSchema(schema));
    if (compiled.size >= COMPILED_KEPT) compiled.delete(compiled.keys().next().value!);
    compiled.set(key, check);
  }
  return check;
}

/**
 * The JSON Schema of an output schema as given, checked: JSON, at most
 * {@link OUTPUT_SCHEMA_MAX_CHARS} characters, and one the compiler takes
 * (by the rules of a tool's input schema: nothing fetched, every keyword
 * known). Refused with OUTPUT_SCHEMA_INVALID otherwise, before anything
 * is journaled.
 */
export function outputSchemaOf(given: OutputSchema): JsonValue {
  let schema: JsonValue;
  if (isStandardSchema(given)) {
    const s = standardJsonSchema(given);
    if (!s.ok) throw invalid(s.why);
    schema = s.schema as JsonValue;
  } else {
    try {
      schema = cloneJson(given as JsonValue);
    } catch (e) {
      throw invalid(`must be JSON: ${e instanceof Error ? e.message : "unknown"}`);
    }
  }
  const size = canonicalJson(schema).length;
  if (size > OUTPUT_SCHEMA_MAX_CHARS) throw invalid(`is ${size} characters of JSON, more than ${OUTPUT_SCHEMA_MAX_CHARS.toLocaleString("en")}`);
  try {
    checkerOf(schema);
  } catch (e) {
    throw invalid(`is refused: ${e instanceof Error ? e.message : String(e)}`);
  }
  return schema;
}

/** The schema the run's next answer must match: its turn's, else the run's; undefined when there is none. */
export function answerSchema(state: RunState): JsonValue | undefined {
  return state.conversation?.outputSchema ?? state.outputSchema;
}

/**
 * A final answer checked against the schema. A schema journaled elsewhere
 * that this code cannot compile refuses every answer, saying so: the run
 * fails at its failure limit rather than taking an unchecked answer.
 */
export function checkAnswer(schema: JsonValue, output: JsonValue): OutputCheck {
  let check: (output: JsonValue) => OutputCheck;
  try {
    check = checkerOf(schema);
  } catch (e) {
    return { valid: false, text: `Error: the run's output schema cannot be compiled here (${e instanceof Error ? e.message : String(e)}): no answer can be accepted.` };
  }
  return check(output);
}
