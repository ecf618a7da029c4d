// Preloaded (--import) into the conformance suite's processes: any connection
// or DNS lookup to something other than loopback is refused and logged, so a
// test can prove the suite fetches nothing at run time.
import dns from "node:dns";
import { appendFileSync } from "node:fs";
import net from "node:net";

const log = process.env["ISOAGENT_OFFLINE_LOG"];
const LOOPBACK = new Set([undefined, "localhost", "127.0.0.1", "::1", "[::1]"]);
const refuse = (what) => {
  if (log) appendFileSync(log, `${what}\n`);
  throw new Error(`offline: ${what} refused`);
};
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function (...args) {
  const first = args[0];
  const o = Array.isArray(first) ? first[0] : typeof first === "object" && first !== null ? first : { port: first, host: typeof args[1] === "string" ? args[1] : undefined };
  if (o?.path === undefined && !LOOPBACK.has(o?.host ?? o?.hostname)) refuse(`connect ${o?.host ?? o?.hostname}:${o?.port}`);
  return connect.apply(this, args);
};
const lookup = dns.lookup;
dns.lookup = function (host, ...rest) {
  if (!LOOPBACK.has(host)) refuse(`lookup ${host}`);
  return lookup.call(this, host, ...rest);
};
