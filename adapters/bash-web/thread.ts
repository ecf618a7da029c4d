/**
 * The module a Web Worker runs for bash (dist/browser/toolkit/bash-worker.js):
 * the interpreter, served over the worker's messages. Bundle it as a module
 * worker, with node:zlib aliased to isoagent/toolkit/bash/zlib-stub, as the
 * page's own bundle.
 *
 * @module
 */
import { serveInterpreter } from "../../src/toolkit/bash/interpreter.js";

const scope = globalThis as unknown as { postMessage(m: unknown): void; addEventListener(type: "message", f: (e: { data: unknown }) => void): void };
serveInterpreter({ postMessage: (m) => scope.postMessage(m), listen: (f) => scope.addEventListener("message", (e) => f(e.data)) });
