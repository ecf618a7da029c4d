/**
 * The exporter's collector from OpenTelemetry's own environment variables
 * (the SDKs' names, so a deployment configured for them needs nothing new):
 * a Worker's env, Node's `process.env`.
 */
import type { OtlpResource } from "./otlp.js";

/** Where to export, read from the environment. */
export interface OtlpEnv {
  readonly endpoint: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly resource: OtlpResource;
}

const read = (env: object, name: string): string | undefined => {
  const v = (env as Record<string, unknown>)[name];
  return typeof v === "string" && v.trim() !== "" ? v.trim() : undefined;
};

/** `k1=v1,k2=v2`, values percent-encoded (the SDKs' format); a pair without `=` is skipped. */
function headersOf(text: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const key = pair.slice(0, at).trim();
    const raw = pair.slice(at + 1).trim();
    let value = raw;
    try {
      value = decodeURIComponent(raw);
    } catch {
      // Not percent-encoded after all: taken as it is.
    }
    if (key !== "") out[key] = value;
  }
  return out;
}

/**
 * The collector named by `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` (used as it
 * is) or `OTEL_EXPORTER_OTLP_ENDPOINT` (the base: `/v1/traces` is added),
 * with `OTEL_EXPORTER_OTLP_TRACES_HEADERS` or `OTEL_EXPORTER_OTLP_HEADERS`
 * (an API key: `x-honeycomb-team=...`, `authorization=Bearer%20...`) and
 * `OTEL_SERVICE_NAME`. Undefined when neither endpoint is set, or
 * `OTEL_SDK_DISABLED` is "true": no export.
 *
 * @example
 * ```ts
 * const where = otlpEnv(process.env)
 * if (where !== undefined) setInterval(() => void otlpExporter({ ...where, cursor }).flush(store), 10_000)
 * ```
 */
export function otlpEnv(env: object): OtlpEnv | undefined {
  if (read(env, "OTEL_SDK_DISABLED")?.toLowerCase() === "true") return undefined;
  const traces = read(env, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT");
  const base = read(env, "OTEL_EXPORTER_OTLP_ENDPOINT");
  const endpoint = traces ?? (base === undefined ? undefined : `${base.replace(/\/+$/, "")}/v1/traces`);
  if (endpoint === undefined) return undefined;
  const serviceName = read(env, "OTEL_SERVICE_NAME");
  return {
    endpoint,
    headers: headersOf(read(env, "OTEL_EXPORTER_OTLP_TRACES_HEADERS") ?? read(env, "OTEL_EXPORTER_OTLP_HEADERS")),
    resource: serviceName === undefined ? {} : { serviceName },
  };
}
