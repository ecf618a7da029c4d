/**
 * isoagent/otel: OpenTelemetry GenAI spans derived from a run's journal,
 * after the fact, and an OTLP/HTTP (JSON) exporter over fetch with a cursor
 * per run, from any runtime.
 *
 * @module
 */
export { journalSpans, GENAI_ATTRIBUTES, type JournalSpansOptions, type Span, type SpanEvent, type SpanValue } from "./spans.js";
export { otlpJson, SCOPE_VERSION, type OtlpJson, type OtlpResource } from "./otlp.js";
export { memoryCursor, otlpExporter, type ExportCursor, type ExportResult, type ListingStore, type OtlpExporter, type OtlpExporterOptions } from "./exporter.js";
export { otlpEnv, type OtlpEnv } from "./env.js";
