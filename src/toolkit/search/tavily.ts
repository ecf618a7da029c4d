/**
 * Tavily's search: POST /search with a JSON body ({ query, max_results,
 * search_depth }), the key as a Bearer token. Results are `results[]` with
 * `title`, `url`, `content` (text) and, for news, `published_date`.
 */
import { platformFetch, parseUrl, type FetchLike } from "../../web.js";
import { isObject, requestJson, scrubbed, str } from "./http.js";
import { SearchError, type SearchHit, type SearchProvider } from "./port.js";

/** How `tavilySearch` reaches Tavily: its key, its endpoint, the search depth, and the fetch it uses. */
export interface TavilySearchOptions {
  /** The API key ("tvly-…"): sent in a header, never shown. */
  readonly apiKey: string;
  /** Default "https://api.tavily.com/search". */
  readonly endpoint?: string | undefined;
  /** Default "basic" (1 credit); "advanced" costs 2. */
  readonly depth?: "basic" | "advanced" | undefined;
  readonly fetch?: FetchLike | undefined;
}

/**
 * A SearchProvider for Tavily.
 *
 * @example
 * ```ts
 * const search = webSearchTool({ provider: tavilySearch({ apiKey: env.TAVILY_API_KEY }) })
 * ```
 */
export function tavilySearch(options: TavilySearchOptions): SearchProvider {
  if (typeof options.apiKey !== "string" || options.apiKey === "") throw new TypeError("tavilySearch needs an apiKey");
  const endpoint = options.endpoint ?? "https://api.tavily.com/search";
  const url = parseUrl(endpoint);
  if (url === undefined) throw new TypeError("tavilySearch: endpoint must be a URL");
  return {
    name: "Tavily",
    host: url.hostname.toLowerCase(),
    async search(query, { count, signal }) {
      const request = JSON.stringify({ query, max_results: count, search_depth: options.depth ?? "basic", include_answer: false, include_raw_content: false, include_images: false });
      const body = await requestJson(
        options.fetch ?? platformFetch(),
        endpoint,
        { method: "POST", headers: { accept: "application/json", "content-type": "application/json", authorization: `Bearer ${options.apiKey}` }, body: request },
        signal,
      );
      if (!isObject(body) || !Array.isArray(body["results"])) throw new SearchError("malformed");
      const hits: SearchHit[] = [];
      for (const r of body["results"]) {
        const title = str(r, "title");
        const link = str(r, "url");
        if (title === undefined || link === undefined) continue;
        const date = str(r, "published_date");
        hits.push({ title, url: link, snippet: str(r, "content") ?? "", ...(date === undefined ? {} : { date }) });
      }
      return hits.map((h) => scrubbed(h, options.apiKey));
    },
  };
}
