/** Types of areas.mjs (plain JavaScript, so that stryker.config.mjs can load it). */
export interface MutationArea {
  readonly what: string;
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
}
export declare const AREAS: Readonly<Record<"json" | "schema" | "policy" | "store" | "driver", MutationArea>>;
