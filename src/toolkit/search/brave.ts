/**
 * The Brave Search API's web search: GET /res/v1/web/search?q=&count=,
 * the key in X-Subscription-Token. Results are `web.results[]` with
 * `title`, `url`, `description` (HTML: highlights in <strong>, entities
 * encoded) and, when Brave dates a page, `page_age` (ISO) or `age`.
 */
import { platformFetch, parseUrl, type FetchLike } from "../../web.js";
import { decodeEntities } from "../html.js";
import { isObject, requestJson, scrubbed, str } from "./http.js";
import { SearchError, type SearchHit, type SearchProvider } from "./port.js";

/** How `braveSearch` reaches Brave Search: its token, its endpoint, and the fetch it uses. */
export interface BraveSearchOptions {
  /** The subscription token: sent in a header, never shown. */
  readonly apiKey: string;
  /** Default "https://api.search.brave.com/res/v1/web/search". */
  readonly endpoint?: string | undefined;
  readonly fetch?: FetchLike | undefined;
}

/** Brave's highlight markup, removed; everything else in a snippet stays as it came (data). */
const plain = (html: string): string => decodeEntities(html.replace(/<\/?(?:strong|b)>/gi, ""));

/**
 * A SearchProvider for the Brave Search API.
 *
 * @example
 * ```ts
 * const search = webSearchTool({ provider: braveSearch({ apiKey: env.BRAVE_API_KEY }) })
 * ```
 */
export function braveSearch(options: BraveSearchOptions): SearchProvider {
  if (typeof options.apiKey !== "string" || options.apiKey === "") throw new TypeError("braveSearch needs an apiKey");
  const endpoint = options.endpoint ?? "https://api.search.brave.com/res/v1/web/search";
  const url = parseUrl(endpoint);
  if (url === undefined) throw new TypeError("braveSearch: endpoint must be a URL");
  return {
    name: "Brave Search",
    host: url.hostname.toLowerCase(),
    async search(query, { count, signal }) {
      const q = `q=${encodeURIComponent(query)}&count=${count}`;
      const body = await requestJson(options.fetch ?? platformFetch(), `${endpoint}?${q}`, { method: "GET", headers: { accept: "application/json", "x-subscription-token": options.apiKey } }, signal);
      if (!isObject(body)) throw new SearchError("malformed");
      const web = body["web"];
      if (web === undefined || web === null) return [];
      if (!isObject(web) || (web["results"] !== undefined && !Array.isArray(web["results"]))) throw new SearchError("malformed");
      const hits: SearchHit[] = [];
      for (const r of (web["results"] as unknown[] | undefined) ?? []) {
        const title = str(r as never, "title");
        const link = str(r as never, "url");
        if (title === undefined || link === undefined) continue;
        const date = str(r as never, "page_age") ?? str(r as never, "age");
        hits.push({ title: plain(title), url: link, snippet: plain(str(r as never, "description") ?? ""), ...(date === undefined ? {} : { date }) });
      }
      return hits.map((h) => scrubbed(h, options.apiKey));
    },
  };
}
