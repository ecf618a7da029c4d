import type { JsonBoundaryError, JsonValue } from "../json/index.js";
import { tryParseJson } from "../json/index.js";
import { acceptedJson } from "../json/parse.js";
import type { CompiledSchema, ValidationIssue } from "../schema/index.js";
import { issuesFunction } from "../schema/compile.js";
import { contractTail } from "./contract.js";

/** Arguments the runtime accepts, parsed. */
export interface ArgsAccepted<Args> {
  readonly valid: true;
  readonly args: Args;
}

/** Arguments the runtime refuses, and why. */
export interface ArgsRefused {
  readonly valid: false;
  /** "invalid_json" when the text failed the JSON boundary, "invalid_arguments" when it failed the schema. */
  readonly failure: "invalid_json" | "invalid_arguments";
  /** The text the driver records in the `invalid_decision` observation, exactly. */
  readonly text: string;
  /** The JSON boundary refusal, for "invalid_json". */
  readonly jsonError: JsonBoundaryError | undefined;
  /** Every failing schema keyword, for "invalid_arguments". */
  readonly issues: readonly ValidationIssue[];
}

/** The outcome of checking raw argument text against a tool. */
export type ArgsCheck<Args> = ArgsAccepted<Args> | ArgsRefused;

/** How many problems an `invalid_decision` text lists before "and N more". */
export const MAX_LISTED_ISSUES = 8;

const EMPTY_ARGS: JsonValue = Object.freeze({}) as JsonValue;

function isBlank(raw: string | Uint8Array): boolean {
  if (typeof raw !== "string") return raw.length === 0;
  // Arguments almost always start with "{": no need to trim them to know.
  const first = raw.charCodeAt(0);
  return first > 0x20 && first < 0x7f ? false : raw.trim() === "";
}

/** The text of a refusal around its summary: what goes before it and after it. */
type Frame = readonly [before: string, after: string];

function frame(tool: string, failure: "invalid_json" | "invalid_arguments"): Frame {
  if (failure === "invalid_json") {
    return [
      `Error: invalid arguments for ${tool}: the arguments are not valid JSON: `,
      contractTail(
        `Call ${tool} again with its arguments as one JSON object that matches its input schema.`,
        "Strict JSON only: no comments, trailing commas, repeated keys or unpaired surrogates. If you cannot write the arguments that way, stop and say why.",
      ),
    ];
  }
  return [
    `Error: invalid arguments for ${tool}: `,
    contractTail(
      `Call ${tool} again with arguments that match its input schema.`,
      "Correct only what is listed. If the task cannot be done with arguments this schema accepts, stop and say why instead of retrying.",
    ),
  ];
}

function describeIssue(i: ValidationIssue): string {
  return i.instanceLocation === "" ? i.message : `at ${i.instanceLocation}: ${i.message}`;
}

function describeIssues(issues: readonly ValidationIssue[]): string {
  if (issues.length === 1) return describeIssue(issues[0]!);
  const listed = issues.slice(0, MAX_LISTED_ISSUES).map(describeIssue);
  const more = issues.length - listed.length;
  return listed.join("; ") + (more > 0 ? `; and ${more} more` : "");
}

/**
 * The body of `CompiledTool.check` for one tool: raw arguments against its
 * compiled schema. The refusal texts' frames are made here, once per tool,
 * so a refusal costs its summary and two concatenations.
 */
export function checker(tool: string, schema: CompiledSchema): (raw: string | Uint8Array) => ArgsCheck<JsonValue> {
  const json = frame(tool, "invalid_json");
  const args = frame(tool, "invalid_arguments");
  const issuesOf = issuesFunction(schema);
  return (raw) => {
    let value: JsonValue | undefined;
    if (isBlank(raw)) {
      value = EMPTY_ARGS;
    } else {
      if (typeof raw === "string") value = acceptedJson(raw);
      if (value === undefined) {
        const parsed = tryParseJson(raw);
        if (!parsed.ok) return { valid: false, failure: "invalid_json", text: json[0] + parsed.error.message + json[1], jsonError: parsed.error, issues: [] };
        value = parsed.value;
      }
    }
    const issues = issuesOf(value);
    if (issues === undefined) return { valid: true, args: value };
    return { valid: false, failure: "invalid_arguments", text: args[0] + describeIssues(issues) + args[1], jsonError: undefined, issues };
  };
}

/** A final answer the output schema accepts (the JSON its text held, when it was text), or the refusal's text for the agent. */
export type OutputCheck = { readonly valid: true; readonly output: JsonValue } | { readonly valid: false; readonly text: string };

/**
 * The check of a final answer against an output schema, with the refusal
 * texts of invalid arguments: what failed, then what to do. An answer the
 * schema accepts as it is (an object from an agent that builds one, a text
 * for a string schema) is taken as it is; a text is read as JSON (a
 * provider's structured-output mode answers in text), under the JSON
 * boundary's limits.
 */
export function outputChecker(schema: CompiledSchema): (output: JsonValue) => OutputCheck {
  const json: Frame = [
    "Error: invalid final answer: it is not valid JSON: ",
    contractTail(
      "Answer again with your final answer as one JSON value that matches the output schema.",
      "Strict JSON only, nothing around it. If you cannot answer that way, say why in an answer that matches the schema.",
    ),
  ];
  const wrong: Frame = [
    "Error: invalid final answer: ",
    contractTail(
      "Answer again with a final answer that matches the output schema.",
      "Correct only what is listed. If the task cannot be answered with a value this schema accepts, say why in an answer that matches it.",
    ),
  ];
  const issuesOf = issuesFunction(schema);
  return (output) => {
    let issues = issuesOf(output);
    if (issues === undefined) return { valid: true, output };
    if (typeof output === "string") {
      const parsed = tryParseJson(output);
      if (!parsed.ok) return { valid: false, text: json[0] + parsed.error.message + json[1] };
      issues = issuesOf(parsed.value);
      if (issues === undefined) return { valid: true, output: parsed.value };
    }
    return { valid: false, text: wrong[0] + describeIssues(issues) + wrong[1] };
  };
}
