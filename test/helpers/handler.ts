import type { IncomingMessage, ServerResponse } from "node:http";

/**
 * An async request handler for node:http's createServer, whose callback
 * returns nothing: a handler that fails destroys its response (the client
 * sees the connection end), rather than leaving an unhandled rejection.
 */
export function asyncHandler(handle: (req: IncomingMessage, res: ServerResponse) => Promise<unknown>): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handle(req, res).catch((e: unknown) => res.destroy(e instanceof Error ? e : new Error(String(e))));
  };
}
