/**
 * The console's login page: a token field, and the printed link's token
 * taken from the address (`/login#token=...`: a fragment is never sent to a
 * server, a log or a Referer) and wiped from the address bar and the tab's
 * history at once, before it is posted to `/login` from the page itself.
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

export const LOGIN_JS = `// The console's login: the token goes to /login in a same-origin POST, never into a kept address.
const from = (text) => new URLSearchParams(text).get("token");
const given = from(location.hash.slice(1)) || from(location.search);
if (given !== null) history.replaceState(null, "", "/login");
async function login(token) {
  const res = await fetch("/login", { method: "POST", credentials: "same-origin", headers: { "content-type": "application/json" }, body: JSON.stringify({ token }) });
  if (res.ok) { location.replace("/"); return; }
  const body = await res.json().catch(() => ({}));
  const error = document.getElementById("error");
  error.textContent = (body.error && body.error.message) || res.statusText;
  error.hidden = false;
}
document.getElementById("login").addEventListener("submit", (e) => { e.preventDefault(); login(document.getElementById("token").value); });
if (given) login(given);
document.body.dataset.ready = "yes";
`;
