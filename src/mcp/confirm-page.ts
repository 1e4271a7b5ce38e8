/**
 * Confirming a write where the client has URL-mode elicitation only (MCP 2025-11-25): a URL cannot
 * say yes, so rsi serves the question itself, on a page on loopback, and the person answers there.
 * The client shows the page's address and opens it with the person's consent; the answer comes
 * back to this server, never through the client or the model.
 *
 * - One server per `rsi mcp serve`, on 127.0.0.1 and a port the system picks, started at the first
 *   question and closed with the session.
 * - Each question has its own address with 256 random bits in it (`/confirm/<id>`), answerable
 *   once, for as long as the question is open; an unknown, answered or closed one is a 404.
 * - The answer is a form POST to the same address, accepted only with this server's own Host and,
 *   when the browser sends one, Origin (no other site's page can post it, and a DNS name rebound to
 *   127.0.0.1 is refused).
 * - The page says the question in rsi's words with the service's text escaped as HTML, loads
 *   nothing, runs no script, and may not be framed or cached.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type PageAnswer = 'yes' | 'no';

export interface ConfirmPage {
  /** The page's address (http://127.0.0.1:<port>/confirm/<id>). */
  url: string;
  /** The question's id, also the elicitation's id. */
  id: string;
  /** The person's answer on the page. */
  answer: Promise<PageAnswer>;
  /** Closes the question: its address answers 404 from now on. */
  close(): void;
}

export interface ConfirmPages {
  /** A page for one question: `heading` is rsi's words, `question` the text asked (escaped on the page). */
  open(heading: string, question: string): Promise<ConfirmPage>;
  close(): Promise<void>;
}

/** The most bytes of a POSTed answer read (the form sends `answer=yes`). */
const MAX_BODY = 1024;

export function confirmPages(): ConfirmPages {
  const open = new Map<string, { heading: string; question: string; answered: (a: PageAnswer) => void }>();
  let listening: Promise<{ server: Server; origin: string }> | undefined;

  const start = (): Promise<{ server: Server; origin: string }> => {
    listening ??= new Promise((resolve, reject) => {
      const server = createServer((req, res) => void handle(req, res).catch(() => res.destroy()));
      server.once('error', reject);
      // The session (stdio) keeps the process alive; the page never does on its own.
      server.unref();
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        resolve({ server, origin: `http://127.0.0.1:${port}` });
      });
    });
    return listening;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const { origin } = await start();
    const host = new URL(origin).host;
    const id = /^\/confirm\/([A-Za-z0-9_-]{43})$/.exec(req.url ?? '')?.[1];
    const question = id ? open.get(id) : undefined;
    // Only this server's own name: a page of another site that rebinds its name to 127.0.0.1 sends its own Host.
    if (req.headers.host !== host) return send(res, 421, page('Wrong address', '<p>This page answers only at its own address.</p>'));
    if (!id || !question) return send(res, 404, page('No such question', '<p>This question was answered, or is no longer open.</p>'));
    if (req.method === 'GET') {
      return send(
        res,
        200,
        page(
          question.heading,
          `<p>${html(question.heading)}</p><pre>${html(question.question)}</pre>` +
            `<form method="post"><button name="answer" value="yes">Yes, do it</button> ` +
            `<button name="answer" value="no">No</button></form>`,
        ),
      );
    }
    if (req.method !== 'POST') return send(res, 405, page('Not allowed', '<p>Answer with the buttons on the page.</p>'));
    const from = req.headers.origin;
    if (from !== undefined && from !== origin) return send(res, 403, page('Refused', '<p>An answer must come from this page.</p>'));
    const body = await readBody(req);
    const answer = new URLSearchParams(body ?? '').get('answer');
    if (answer !== 'yes' && answer !== 'no') return send(res, 400, page('No answer', '<p>Answer with the buttons on the page.</p>'));
    open.delete(id);
    question.answered(answer);
    return send(
      res,
      200,
      page('Answered', `<p>You answered <strong>${answer}</strong>. You can close this page and go back to your assistant.</p>`),
    );
  };

  return {
    async open(heading, question) {
      const { origin } = await start();
      const id = randomBytes(32).toString('base64url');
      let answered: (a: PageAnswer) => void = () => undefined;
      const answer = new Promise<PageAnswer>((resolve) => (answered = resolve));
      open.set(id, { heading, question, answered });
      return { url: `${origin}/confirm/${id}`, id, answer, close: () => void open.delete(id) };
    },
    async close() {
      open.clear();
      const started = await listening?.catch(() => undefined);
      if (!started) return;
      started.server.closeAllConnections();
      await new Promise<void>((resolve) => started.server.close(() => resolve()));
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    // Nothing loads, nothing runs, no one frames it, nothing is kept.
    'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    'referrer-policy': 'no-referrer',
  });
  res.end(body);
}

const html = (text: string): string =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>rsi: ${html(title)}</title>` +
  '<style>body{font:16px system-ui,sans-serif;max-width:48em;margin:2em auto;padding:0 1em}pre{white-space:pre-wrap;background:#f4f4f4;padding:1em}button{font-size:1em;margin-right:1em}</style>' +
  `</head><body><h1>rsi</h1>${body}</body></html>`;
