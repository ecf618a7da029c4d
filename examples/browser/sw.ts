/**
 * The service worker: it keeps the app shell, so the page loads (and its
 * agent works) without the network. Network first when online, so a new
 * build is picked up; the cache when the network is cut.
 */
const CACHE = "isoagent-example-v1";
const SHELL = ["./", "./index.html", "./app.js", "./app.css", "./app.webmanifest"];

const sw = self as unknown as ServiceWorkerGlobalScope;

sw.addEventListener("install", (e) => {
  e.waitUntil(
    caches
      .open(CACHE)
      .then((c) => c.addAll(SHELL))
      .then(() => sw.skipWaiting()),
  );
});
sw.addEventListener("activate", (e) => {
  e.waitUntil(sw.clients.claim());
});
sw.addEventListener("fetch", (e) => {
  // Only the app's own files (under the worker's scope): served by the Worker at /app/, the page's API calls (/runs/...) are not its to cache.
  if (e.request.method !== "GET" || !e.request.url.startsWith(sw.registration.scope)) return;
  e.respondWith(
    fetch(e.request)
      .then(async (res) => {
        if (res.ok) await (await caches.open(CACHE)).put(e.request, res.clone());
        return res;
      })
      .catch(async () => (await caches.match(e.request, { ignoreSearch: true })) ?? (await caches.match("./index.html"))!),
  );
});
