/**
 * The SearchProvider port: one search request to a web search API, its
 * answer as plain hits. Adapters speak a provider's wire format over fetch
 * (Brave Search API, Tavily); web_search does the rest (retries, caps,
 * the model-facing text) the same for every provider.
 */
import { IsoagentError, isIsoagentError } from "../../errors.js";
import type { AbortSignalLike } from "../../web.js";

/** One result, as the provider gave it (title and snippet as text). */
export interface SearchHit {
  readonly title: string;
  readonly url: string;
  readonly snippet: string;
  /** A publication date or age, when the provider gives one ("2025-01-15", "3 days ago"). */
  readonly date?: string | undefined;
}

/** A search service web_search asks (Brave Search, Tavily, or your own): its name for the model, its host for policy, and one request for hits. */
export interface SearchProvider {
  /** For the model: "Brave Search", "Tavily". */
  readonly name: string;
  /** The host requests go to, for policy (a `host` resource). */
  readonly host: string;
  /** One request for at most `count` hits; throws a {@link SearchError} for a failure web_search explains. */
  search(query: string, options: { readonly count: number; readonly signal: AbortSignalLike }): Promise<SearchHit[]>;
}

/**
 * A search that failed in a way the tool can explain: the network
 * (nothing came back), an HTTP status (with the wait the provider asked
 * for, if any), or an answer that could not be read. Its message never
 * holds the provider's body or the key. Code `SEARCH_FAILED`.
 */
export class SearchError extends IsoagentError {
  readonly kind: "network" | "status" | "malformed";
  readonly status: number | undefined;
  readonly retryAfterMs: number | undefined;
  constructor(kind: "network" | "status" | "malformed", options: { status?: number; retryAfterMs?: number | undefined } = {}) {
    super(
      "SEARCH_FAILED",
      kind === "status" ? `the search provider answered ${options.status}` : kind === "network" ? "the search provider could not be reached" : "the search provider's answer could not be read",
    );
    this.name = "SearchError";
    this.kind = kind;
    this.status = options.status;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** A {@link SearchError} from any copy of the library: `isIsoagentError(e, "SEARCH_FAILED")`. */
export function isSearchError(e: unknown): e is SearchError {
  return isIsoagentError(e, "SEARCH_FAILED");
}
