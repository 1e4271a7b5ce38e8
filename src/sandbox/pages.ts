/**
 * The sandbox's web pages: consent, setup and a landing page. Plain HTML forms, no JavaScript.
 */

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

const STYLE = `
  :root { color-scheme: light dark; --accent: #2563eb; --muted: #6b7280; --border: #d1d5db; }
  * { box-sizing: border-box; }
  body { font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; margin: 0;
         background: #f3f4f6; color: #111827; display: flex; min-height: 100vh; align-items: center; justify-content: center; }
  @media (prefers-color-scheme: dark) { body { background: #111827; color: #f9fafb; } .card { background: #1f2937 !important; } }
  .card { background: #fff; border-radius: 12px; box-shadow: 0 10px 30px rgb(0 0 0 / 0.12); padding: 2rem 2.25rem; max-width: 34rem; width: 100%; margin: 1rem; }
  h1 { font-size: 1.35rem; margin: 0 0 0.25rem; }
  .sub { color: var(--muted); margin: 0 0 1.25rem; font-size: 0.95rem; }
  ul { padding-left: 1.2rem; } li { margin: 0.2rem 0; }
  code { font-size: 0.9em; background: rgb(127 127 127 / 0.15); padding: 0.1rem 0.3rem; border-radius: 4px; word-break: break-all; }
  .actions { display: flex; gap: 0.75rem; margin-top: 1.5rem; }
  button { font: inherit; padding: 0.6rem 1.3rem; border-radius: 8px; border: 1px solid var(--border); background: transparent; color: inherit; cursor: pointer; }
  button.primary { background: var(--accent); border-color: var(--accent); color: #fff; }
  .ok { color: #059669; font-weight: 600; } .warn { color: #b45309; font-weight: 600; }
  .badge { display: inline-block; font-size: 0.75rem; text-transform: uppercase; letter-spacing: 0.05em; color: var(--muted); margin-bottom: 0.75rem; }
`;

export function page(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} · Research Intelligence Service (sandbox)</title>
<style>${STYLE}</style>
</head>
<body>
<main class="card">
<div class="badge">Research Intelligence Service · sandbox</div>
${body}
</main>
</body>
</html>
`;
}

const SCOPE_TEXT: Record<string, string> = {
  'service:read': 'Read keywords, projects, signals and opportunities',
  'projects:write': 'Create and update projects',
  'analyses:run': 'Start scoring analyses',
};

export function consentPage(opts: {
  requestId: string;
  clientName: string;
  scopes: string[];
  resource: string;
  user: string;
  redirectUri: string;
}): string {
  // The client names itself; where the code goes is the fact a person can check.
  const target = new URL(opts.redirectUri);
  const scopes = opts.scopes.map((s) => `<li><code>${escapeHtml(s)}</code> — ${escapeHtml(SCOPE_TEXT[s] ?? s)}</li>`).join('\n');
  return page(
    'Authorize access',
    `<h1>Allow <strong>${escapeHtml(opts.clientName)}</strong> to access your account?</h1>
<p class="sub">Signed in as ${escapeHtml(opts.user)}</p>
<p>It asks for:</p>
<ul>
${scopes}
</ul>
<p>For the resource <code>${escapeHtml(opts.resource)}</code>.</p>
<p>Approving sends you, and an authorization code, to <strong class="host">${escapeHtml(target.host)}</strong> (<code>${escapeHtml(`${target.origin}${target.pathname}`)}</code>).${target.protocol === 'http:' ? ' That address is on this computer.' : ''}</p>
<form method="post" action="/oauth/authorize/decision">
<input type="hidden" name="request" value="${escapeHtml(opts.requestId)}">
<div class="actions">
<button class="primary" type="submit" name="decision" value="approve">Approve</button>
<button type="submit" name="decision" value="deny">Deny</button>
</div>
</form>`,
  );
}

export function errorPage(title: string, message: string): string {
  return page(title, `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p>`);
}

export function setupPage(opts: { projectName: string; projectId: string; setupDone: boolean; justFinished: boolean }): string {
  const status = opts.setupDone
    ? `<p class="ok">✓ Scoring setup is finished${opts.justFinished ? '' : ' for this project'}.</p><p>You can now run analyses, for example:</p><p><code>rsi analyses run ${escapeHtml(opts.projectId)} --top 3 --type target</code></p>`
    : `<p class="warn">Scoring setup is not finished yet.</p>
<p>Scoring uses the project's watchlist and goals. Finish the setup to let analyses run.</p>
<form method="post" action="/projects/${escapeHtml(opts.projectId)}/setup">
<div class="actions"><button class="primary" type="submit">Finish scoring setup</button></div>
</form>`;
  return page(
    `${opts.projectName} — overview`,
    `<h1>${escapeHtml(opts.projectName)}</h1>
<p class="sub">Project overview</p>
${status}`,
  );
}

export function landingPage(base: string): string {
  return page(
    'Sandbox',
    `<h1>rsi sandbox</h1>
<p class="sub">A local, spec-faithful fake of the Research Intelligence Service.</p>
<ul>
<li>API: <code>${escapeHtml(base)}/api/v1</code></li>
<li>Authorization server metadata: <code>${escapeHtml(base)}/.well-known/oauth-authorization-server</code></li>
<li>Sign in: <code>rsi login --base-url ${escapeHtml(base)}</code></li>
</ul>`,
  );
}
