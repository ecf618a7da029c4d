/**
 * The Durable Object bindings of isoagent's Worker, as wrangler.toml names
 * them, for miniflare (npm start, the tests, the bench).
 */
export const RUN_OBJECTS = {
  durableObjects: {
    RUNS: { className: "RunObject", useSQLite: true },
    RUN_INDEX: { className: "RunIndex", useSQLite: true },
  },
} as const;
