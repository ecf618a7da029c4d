/**
 * The example's traces: when a collector is set on the page (kept in this
 * browser's localStorage, as OpenTelemetry's environment variables would
 * name it), the runs' spans are exported to it every few seconds while the
 * browser is online, and at once when it comes back online. The export
 * cursor lives in IndexedDB beside the runs (idbCursor), so a reload, or
 * another tab, resumes where the last export got (two tabs at the same
 * moment may both send a batch: same ids, which the collector drops).
 * With no collector set, nothing is exported and nothing is opened.
 *
 * The collector must accept the page's origin (CORS: the OpenTelemetry
 * Collector's `cors.allowed_origins`), and a deployment's CSP must let the
 * page connect to it (`npm run example:browser` allows a local collector on
 * port 4318).
 */
import { otlpEnv, otlpExporter, type ExportCursor, type ListingStore } from "../../../src/otel/index.js";

const KEY = "isoagent-example-otel";
/** How often the spans go while online. */
const EVERY_MS = 5_000;

interface TracesSetting {
  /** The collector's traces endpoint, e.g. http://localhost:4318/v1/traces. */
  readonly endpoint: string;
  /** Its API key as `name=value` pairs (OTEL_EXPORTER_OTLP_HEADERS' format). */
  readonly headers: string;
}

function setting(): TracesSetting | undefined {
  try {
    const s = JSON.parse(localStorage.getItem(KEY) ?? "null") as TracesSetting | null;
    return s !== null && typeof s.endpoint === "string" && s.endpoint !== "" ? s : undefined;
  } catch {
    return undefined;
  }
}

export function startTraces(page: { store: ListingStore; cursor: () => ExportCursor; status: HTMLElement; form: HTMLElement }): void {
  page.form.addEventListener("submit", (e) => {
    e.preventDefault();
    const endpoint = (page.form.querySelector("[name=endpoint]") as HTMLInputElement).value.trim();
    const headers = (page.form.querySelector("[name=headers]") as HTMLInputElement).value.trim();
    if (endpoint === "") localStorage.removeItem(KEY);
    else localStorage.setItem(KEY, JSON.stringify({ endpoint, headers } satisfies TracesSetting));
    location.reload();
  });
  const s = setting();
  const where = s === undefined ? undefined : otlpEnv({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: s.endpoint, OTEL_EXPORTER_OTLP_HEADERS: s.headers });
  if (where === undefined) {
    page.status.textContent = "traces: off";
    page.status.dataset["traces"] = "off";
    return;
  }
  (page.form.querySelector("[name=endpoint]") as HTMLInputElement).value = s!.endpoint;
  const exporter = otlpExporter({ ...where, cursor: page.cursor(), resource: { serviceName: "isoagent-browser-example" } });
  let sent = 0;
  let rounds = 0;
  page.status.dataset["traces"] = "on";
  const show = (note: string): void => {
    page.status.textContent = `traces: to ${where.endpoint}, ${sent} spans sent${note}`;
    page.status.dataset["rounds"] = String(rounds);
  };
  const exportNow = async (): Promise<void> => {
    // Offline, nothing is tried: the spans wait in the journal, the cursor where it was.
    if (!navigator.onLine) return show(" (offline: waiting)");
    const results = await exporter.flush(page.store).catch((e: unknown) => [{ exported: 0, error: e instanceof Error ? e.message : String(e) }]);
    sent += results.reduce((n, r) => n + r.exported, 0);
    rounds++;
    const error = results.find((r) => r.error !== undefined)?.error;
    show(error === undefined ? "" : ` (${error})`);
  };
  show("");
  setInterval(() => void exportNow(), EVERY_MS);
  window.addEventListener("online", () => void exportNow());
  void exportNow();
}
