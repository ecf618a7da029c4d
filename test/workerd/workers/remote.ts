/**
 * A Durable Object's class as its RPC stub answers it: every method's result
 * a promise. (The runtime's own stub types recurse too deep for the
 * compiler, so the test Workers cast a stub to this instead.)
 */
export type Remote<T> = { [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<Awaited<R>> : T[K] };
