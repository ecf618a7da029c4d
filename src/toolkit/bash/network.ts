/**
 * curl's network inside the shell, when the application allows one: the
 * same allowlist as http_fetch, checked at every hop (each redirect is
 * followed here, its host and address put to the allowlist and then to the
 * run's policy before it is reached), the methods the application allows,
 * bodies read up to a cap, credentials added per host outside the sandbox
 * (the command never sees them). What was reached is recorded, so the
 * result can mark its output as untrusted.
 */
import type { PermitAnswer, ResourceRef } from "../../tools/index.js";
import { parseUrl, readBytes, type AbortSignalLike, type FetchLike, type FetchResponseLike, type UrlParts } from "../../web.js";
import { hostAllowed } from "../fetch.js";
import type { Refusal } from "./fs.js";
import type { JbSecureFetch as SecureFetch } from "./just-bash.js";

export interface ShellNetwork {
  readonly allow: readonly string[];
  readonly methods: readonly string[];
  readonly maxBytes: number;
  readonly headers: ((host: string) => Readonly<Record<string, string>> | undefined) | undefined;
  readonly fetch: FetchLike;
}

export interface NetworkLog {
  /** Hosts that answered, in order, without repeats. */
  readonly hosts: string[];
  readonly refusals: Refusal[];
}

const MAX_REDIRECTS = 5;

function hop(url: UrlParts): ResourceRef[] {
  return [
    { kind: "host", value: url.hostname.toLowerCase(), operation: "network" },
    { kind: "url", value: url.href, operation: "network" },
  ];
}

async function readCapped(res: FetchResponseLike, max: number): Promise<Uint8Array> {
  const bytes = await readBytes(res.body, max);
  if (bytes === undefined) throw new Error(`the response is larger than ${max} bytes`);
  return bytes;
}

/** curl's fetch for one command: allowlist and policy at every hop, recorded in `log`. */
export function shellFetch(
  net: ShellNetwork,
  permit: (resources: readonly ResourceRef[]) => PermitAnswer,
  trusted: <T>(fn: () => Promise<T>) => Promise<T>,
  signal: AbortSignalLike | undefined,
  log: NetworkLog,
): SecureFetch {
  const refuse = (url: string, why: "allowlist" | "policy", message: string): Error => {
    log.refusals.push({ operation: "fetch", path: url, why });
    return new Error(message);
  };
  return (raw, options = {}) =>
    trusted(async () => {
      let method = (options.method ?? "GET").toUpperCase();
      if (!net.methods.includes(method)) throw new Error(`method ${method} is not allowed here (allowed: ${net.methods.join(", ")})`);
      let body = options.body;
      let url = parseUrl(raw);
      if (url === undefined) throw new Error(`not a URL: ${raw}`);
      for (let hops = 0; ; hops++) {
        if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error(`only http and https can be fetched, not ${url.protocol}`);
        if (url.username !== "" || url.password !== "") throw new Error("addresses with credentials are not allowed");
        if (!hostAllowed(net.allow, url)) throw refuse(url.href, "allowlist", `host ${url.host} is not on the allowlist (${net.allow.join(", ")})`);
        const answer = permit(hop(url));
        if (answer.permission !== "allow") throw refuse(url.href, "policy", `host ${url.host} is not allowed by policy`);
        const headers: Record<string, string> = {};
        const given = options.headers;
        if (given !== undefined) {
          if (typeof given.forEach === "function" && !Object.hasOwn(given, "forEach"))
            (given as { forEach(cb: (value: string, key: string) => void): void }).forEach((v, k) => void (headers[k.toLowerCase()] = v));
          else for (const [k, v] of Object.entries(given as Record<string, string>)) headers[k.toLowerCase()] = v;
        }
        // Credentials go last: a header the command set cannot replace them.
        for (const [k, v] of Object.entries(net.headers?.(url.host) ?? {})) headers[k.toLowerCase()] = v;
        const res = await net.fetch(url.href, { method, headers, ...(body === undefined ? {} : { body }), redirect: "manual", ...(signal === undefined ? {} : { signal }) });
        if (!log.hosts.includes(url.host)) log.hosts.push(url.host);
        const location = res.headers.get("location");
        if (options.followRedirects !== false && res.status >= 300 && res.status <= 399 && res.status !== 304 && location !== null) {
          if (hops >= Math.min(options.maxRedirects ?? MAX_REDIRECTS, MAX_REDIRECTS)) throw new Error(`too many redirects (at most ${MAX_REDIRECTS})`);
          const next = parseUrl(location, url.href);
          if (next === undefined) throw new Error("a redirect to an address that does not parse");
          void res.body
            ?.getReader()
            .cancel()
            .catch(() => {});
          if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
            method = "GET";
            body = undefined;
          }
          url = next;
          continue;
        }
        const bytes = method === "HEAD" ? new Uint8Array(0) : await readCapped(res, net.maxBytes);
        const out: Record<string, string> = {};
        (res.headers as { forEach?: (cb: (value: string, key: string) => void) => void }).forEach?.((v, k) => {
          out[k] = v;
        });
        return { status: res.status, statusText: (res as { statusText?: string }).statusText ?? "", headers: out, body: bytes, url: url.href };
      }
    });
}
