/**
 * The argument checkers isoagent is compared with, on the check-args cases:
 * ajv (compiled validators: it generates code with new Function, so it
 * cannot run on Workers; an upper bound, informative), zod 4 with
 * `jitless: true` (what zod does where eval is refused), and TypeBox's
 * Value.Check (no eval). Each checks JSON.parse's output; none does the
 * strict JSON boundary checks (repeated keys, lone surrogates, depth).
 */
import { Type, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import Ajv2020 from "ajv/dist/2020.js";
import { z } from "zod";

export interface PeerValidator {
  readonly name: string;
  /** A checker of raw argument text for one case, or undefined when the peer cannot express the schema. */
  make(caseId: string, jsonSchema: object): ((raw: string) => boolean) | undefined;
}

// zod 4 compiles validators with new Function unless told not to; Workers refuse that.
z.config({ jitless: true });

const zodSchemas: Record<string, z.ZodType> = {
  small: z.strictObject({ path: z.string().min(1), offset: z.number().int().min(0).optional(), limit: z.number().int().min(1).optional(), encoding: z.enum(["utf-8", "latin1"]).optional() }),
  nested: z.strictObject({
    url: z.string().regex(/^https?:\/\/[^\s/$.?#].[^\s]*$/u),
    method: z.enum(["GET", "POST", "PUT", "DELETE"]),
    headers: z.array(z.strictObject({ name: z.string().regex(/^[A-Za-z0-9-]+$/u), value: z.string().max(4096) })).max(32),
    body: z.union([z.string().max(65536), z.null()]).optional(),
    retry: z.strictObject({ count: z.number().int().min(0).max(5).optional(), backoffMs: z.number().min(0).optional() }).optional(),
  }),
  "edits-10kb": z.strictObject({
    edits: z.array(z.strictObject({ path: z.string().regex(/^[^/][^\u0000]*$/u), old_text: z.string().min(1), new_text: z.string() })).min(1),
    dry_run: z.boolean().optional(),
  }),
};

const typeboxSchemas: Record<string, TSchema> = {
  small: Type.Object(
    {
      path: Type.String({ minLength: 1 }),
      offset: Type.Optional(Type.Integer({ minimum: 0 })),
      limit: Type.Optional(Type.Integer({ minimum: 1 })),
      encoding: Type.Optional(Type.Union([Type.Literal("utf-8"), Type.Literal("latin1")])),
    },
    { additionalProperties: false },
  ),
  nested: Type.Object(
    {
      url: Type.String({ pattern: "^https?://[^\\s/$.?#].[^\\s]*$" }),
      method: Type.Union([Type.Literal("GET"), Type.Literal("POST"), Type.Literal("PUT"), Type.Literal("DELETE")]),
      headers: Type.Array(Type.Object({ name: Type.String({ pattern: "^[A-Za-z0-9-]+$" }), value: Type.String({ maxLength: 4096 }) }, { additionalProperties: false }), { maxItems: 32 }),
      body: Type.Optional(Type.Union([Type.String({ maxLength: 65536 }), Type.Null()])),
      retry: Type.Optional(Type.Object({ count: Type.Optional(Type.Integer({ minimum: 0, maximum: 5 })), backoffMs: Type.Optional(Type.Number({ minimum: 0 })) }, { additionalProperties: false })),
    },
    { additionalProperties: false },
  ),
  "edits-10kb": Type.Object(
    {
      edits: Type.Array(Type.Object({ path: Type.String({ pattern: "^[^/][^\\u0000]*$" }), old_text: Type.String({ minLength: 1 }), new_text: Type.String() }, { additionalProperties: false }), {
        minItems: 1,
      }),
      dry_run: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
};

export const PEER_VALIDATORS: readonly PeerValidator[] = [
  {
    name: "JSON.parse + ajv (compiled, uses eval)",
    make: (_id, schema) => {
      const Ajv = (Ajv2020 as unknown as { default?: typeof Ajv2020 }).default ?? Ajv2020;
      const validate = new Ajv({ allErrors: false, strict: false, validateFormats: false }).compile(schema);
      return (raw) => validate(JSON.parse(raw)) as boolean;
    },
  },
  {
    name: "JSON.parse + zod 4 safeParse (jitless)",
    make: (id) => {
      const s = zodSchemas[id];
      return s === undefined ? undefined : (raw) => s.safeParse(JSON.parse(raw)).success;
    },
  },
  {
    name: "JSON.parse + TypeBox Value.Check",
    make: (id) => {
      const s = typeboxSchemas[id];
      return s === undefined ? undefined : (raw) => Value.Check(s, JSON.parse(raw));
    },
  },
];
