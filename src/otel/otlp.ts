/**
 * Spans as OTLP/JSON (an `ExportTraceServiceRequest`): lowerCamelCase field
 * names, trace and span ids as hex strings (OTLP's own JSON rule, not
 * protobuf's base64), 64-bit integers as decimal strings, enums as numbers.
 */
import type { Span, SpanValue } from "./spans.js";

/** The OTLP/JSON body of an export request. */
export type OtlpJson = { readonly resourceSpans: readonly unknown[] };

/** The resource every exported span belongs to: the service's name and more attributes. */
export interface OtlpResource {
  /** `service.name`. Default "isoagent". */
  readonly serviceName?: string;
  /** More resource attributes (deployment.environment, ...). */
  readonly attributes?: Readonly<Record<string, string>>;
}

/** The version the `scope` names. */
export const SCOPE_VERSION = "0.1.0";

function value(v: SpanValue): Record<string, unknown> {
  if (typeof v === "string") return { stringValue: v };
  if (typeof v === "boolean") return { boolValue: v };
  if (typeof v === "number") return Number.isSafeInteger(v) ? { intValue: String(v) } : { doubleValue: v };
  return { arrayValue: { values: v.map((x) => ({ stringValue: x })) } };
}

const attributes = (a: Readonly<Record<string, SpanValue>>): unknown[] => Object.keys(a).map((key) => ({ key, value: value(a[key]!) }));
const nanos = (ms: number): string => `${BigInt(Math.round(ms)) * 1_000_000n}`;

/**
 * The OTLP/JSON export request for spans.
 *
 * @example
 * ```ts
 * await fetch("http://collector:4318/v1/traces", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(otlpJson(spans)) })
 * ```
 */
export function otlpJson(spans: readonly Span[], resource: OtlpResource = {}): OtlpJson {
  return {
    resourceSpans: [
      {
        resource: { attributes: attributes({ "service.name": resource.serviceName ?? "isoagent", ...resource.attributes }) },
        scopeSpans: [
          {
            scope: { name: "isoagent", version: SCOPE_VERSION },
            spans: spans.map((s) => ({
              traceId: s.traceId,
              spanId: s.spanId,
              ...(s.parentSpanId === undefined ? {} : { parentSpanId: s.parentSpanId }),
              name: s.name,
              kind: s.kind,
              startTimeUnixNano: nanos(s.startMs),
              endTimeUnixNano: nanos(s.endMs),
              attributes: attributes(s.attributes),
              events: s.events.map((e) => ({ timeUnixNano: nanos(e.timeMs), name: e.name, attributes: attributes(e.attributes) })),
              status: s.status.message === undefined ? { code: s.status.code } : { code: s.status.code, message: s.status.message },
            })),
          },
        ],
      },
    ],
  };
}
