// Issue 20, items 3 and 4: the one URL-open policy (src/io/browser.ts) and the one shell-quoting
// rule for suggested commands (`shellQuote` in src/io/text.ts).
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { checkServiceUrl, openServiceUrl } from '../../src/io/browser.js';
import { shellQuote } from '../../src/io/text.js';

const BASE = 'https://rsi.example.com';

describe('checkServiceUrl', () => {
  it.each([['https://rsi.example.com/projects/1/overview?setup=1'], ['https://rsi.example.com:443/x'], ['HTTPS://RSI.EXAMPLE.COM/x']])(
    'opens %s (https, same origin)',
    (url) => {
      expect(checkServiceUrl(url, BASE).ok).toBe(true);
    },
  );

  it('opens http on loopback when the base URL is that loopback origin (the sandbox)', () => {
    expect(checkServiceUrl('http://127.0.0.1:4000/projects/x', 'http://127.0.0.1:4000').ok).toBe(true);
    expect(checkServiceUrl('http://127.0.0.1:4001/projects/x', 'http://127.0.0.1:4000').ok).toBe(false);
  });

  it.each([
    'file:///etc/passwd',
    'javascript:alert(1)',
    'vscode://file/etc/passwd',
    'ms-msdt:/id PCWDiagnostic',
    'data:text/html,<script>alert(1)</script>',
    'https://evil.example/phish',
    'https://rsi.example.com.evil.example/x',
    'http://rsi.example.com/x',
    'https://user:pw@rsi.example.com/x',
    '--help',
    ' https://rsi.example.com/x',
    'https://rsi.example.com/x\u001b]52;c;eA==\u0007',
    '',
  ])('refuses %j', (url) => {
    expect(checkServiceUrl(url, BASE).ok).toBe(false);
  });

  it('a refused URL is not opened and one line says why', async () => {
    const said: string[] = [];
    const opened: string[] = [];
    const result = await openServiceUrl('file:///etc/passwd', {
      env: {},
      trustedOrigin: BASE,
      what: 'the setup page',
      say: (l) => said.push(l),
      open: async (u) => (opened.push(u), true),
    });
    expect(result).toBe('refused');
    expect(opened).toEqual([]);
    expect(said).toEqual([
      'warning: not opening the setup page the service sent (its scheme is file:, not https:); open it yourself only if you trust it',
    ]);
    const ok = await openServiceUrl(`${BASE}/p`, {
      env: {},
      trustedOrigin: BASE,
      what: 'x',
      say: () => undefined,
      open: async (u) => (opened.push(u), true),
    });
    expect(ok).toBe('opened');
    expect(opened).toEqual([`${BASE}/p`]);
  });
});

describe('shellQuote', () => {
  const nasty = ['$(touch pwned)', '`id`', 'a; rm -rf ~', "it's", '*', 'x\ny', '-n', 'a b', '"q"', '\\', ''];

  it('leaves plain words alone', () => {
    expect(shellQuote('0b8f2c1e-1111-4222-8333-444455556666')).toBe('0b8f2c1e-1111-4222-8333-444455556666');
    expect(shellQuote('KRAS')).toBe('KRAS');
  });

  it.each(nasty)('bash reads %j back as exactly one word, unexpanded', (value) => {
    const out = execFileSync('bash', ['-c', `printf '%s\\0' ${shellQuote(value)}`], { encoding: 'utf8' });
    expect(out).toBe(`${value}\0`);
  });
});
