/**
 * The console's login page: a token field, and the printed link's one-time
 * code taken from the address (`/login#code=...`: a fragment is never sent
 * to a server, a log or a Referer) and wiped from the address bar and the
 * tab's history at once, before it is posted to `/login` from the page
 * itself. The browser still writes the link to its history files, which is
 * why the link carries a code that works once, within a minute, and never
 * the token.
 */

export const LOGIN_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>isoagent console: log in</title>
<link rel="stylesheet" href="/console.css">
<link rel="icon" href="data:,">
</head>
<body>
<header><h1>isoagent <span>operator console</span></h1></header>
<main class="login">
<form id="login"><h2>Log in</h2>
<label for="token">Access token</label>
<input id="token" name="token" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
<p id="error" role="alert" hidden></p>
</form>
</main>
<script type="module" src="/login.js"></script>
</body>
</html>`;

export const LOGIN_JS = `// The console's login: a one-time code from the link (or the token typed in) goes to /login in a same-origin POST, never into a kept address.
const from = (text, name) => new URLSearchParams(text).get(name);
const hash = location.hash.slice(1);
const code = from(hash, "code");
// Older links carried the token itself (#token= or ?token=): still taken, but a code is what to print.
const given = code === null ? from(hash, "token") || from(location.search, "token") : null;
if (code !== null || given !== null) history.replaceState(null, "", "/login");
async function login(body) {
  const res = await fetch("/login", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  if (res.ok) { location.replace("/"); return; }
  const answer = await res.json().catch(() => ({}));
  const error = document.getElementById("error");
  error.textContent = (answer.error && answer.error.message) || res.statusText;
  error.hidden = false;
}
document.getElementById("login").addEventListener("submit", (e) => { e.preventDefault(); login({ token: document.getElementById("token").value }); });
if (code) login({ code });
else if (given) login({ token: given });
document.body.dataset.ready = "yes";
`;
