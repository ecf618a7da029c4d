/**
 * The module a Node worker thread runs for bash (dist/node/toolkit/bash-worker.js):
 * the interpreter, served over the thread's port.
 *
 * @module
 */
import { parentPort } from "node:worker_threads";
import { serveInterpreter } from "../../src/toolkit/bash/interpreter.js";

const port = parentPort;
if (port === null) throw new Error("isoagent's bash worker must run in a worker thread");
serveInterpreter({ postMessage: (m) => port.postMessage(m), listen: (f) => void port.on("message", f) });
