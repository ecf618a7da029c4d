/**
 * isoagent/toolkit/web-search: the web_search tool over a SearchProvider
 * port, with adapters for the Brave Search API and Tavily. Its contract is
 * in docs/tools/web_search.md.
 *
 * @module
 */
export { webSearchTool, SEARCH_DEFAULT_HITS, SEARCH_MAX_HITS, SEARCH_SNIPPET_MAX_CHARS, SEARCH_TITLE_MAX_CHARS, SEARCH_URL_MAX_CHARS, type WebSearchOptions } from "./tool.js";
export { SearchError, type SearchHit, type SearchProvider } from "./port.js";
export { braveSearch, type BraveSearchOptions } from "./brave.js";
export { tavilySearch, type TavilySearchOptions } from "./tavily.js";
