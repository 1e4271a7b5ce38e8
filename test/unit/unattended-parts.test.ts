// The parts of issue 46 that need no process: the hand-over line of `auth token --refresh` /
// `login --with-token`, and the file store telling a copied config folder from its own.
import { cp, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeHandOver, encodeHandOver } from '../../src/auth/with-token.js';
import { UsageError } from '../../src/errors.js';
import type { StoredTokens } from '../../src/storage/credentials.js';
import { FileStore } from '../../src/storage/file-store.js';

const TOKENS: StoredTokens = { accessToken: 'a1', refreshToken: 'r1', expiresAt: 1, scope: 'service:read', clientId: 'client-1' };

describe('the hand-over line', () => {
  it('carries the refresh token and its client, and reads back', () => {
    const line = encodeHandOver(TOKENS);
    expect(line).toMatch(/^rsi-refresh\.[A-Za-z0-9_-]+$/);
    expect(decodeHandOver(`${line}\n`, undefined)).toEqual({ clientId: 'client-1', refreshToken: 'r1' });
  });

  it('keeps a confidential client’s way of authenticating', () => {
    const line = encodeHandOver({ ...TOKENS, clientAuth: 'client_secret_basic', clientSecret: 's' });
    expect(decodeHandOver(line, undefined)).toEqual({
      clientId: 'client-1',
      refreshToken: 'r1',
      clientAuth: 'client_secret_basic',
      clientSecret: 's',
    });
  });

  it('takes a bare refresh token only with --client-id, and refuses empty, damaged or several', () => {
    expect(decodeHandOver('bare-token\n', 'c9')).toEqual({ clientId: 'c9', refreshToken: 'bare-token' });
    expect(() => decodeHandOver('bare-token', undefined)).toThrow(/needs --client-id/);
    expect(() => decodeHandOver('  \n', undefined)).toThrow(/read nothing on stdin/);
    expect(() => decodeHandOver('rsi-refresh.!!!', undefined)).toThrow(UsageError);
    expect(() => decodeHandOver('one two', 'c9')).toThrow(/one token/);
    expect(() => encodeHandOver({ ...TOKENS, refreshToken: undefined })).toThrow(/no refresh token/);
  });
});

describe('FileStore: a copied config folder', () => {
  let dirs: string[] = [];
  beforeEach(() => {
    dirs = [];
  });
  afterEach(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });
  const folder = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'rsi-copied-'));
    dirs.push(dir);
    return dir;
  };
  const key = { baseUrl: 'https://svc.test', profile: 'default' };

  it('reads its own entries as they are, and a copy’s with where they were saved', async () => {
    const original = await folder();
    await new FileStore(original).save(key, TOKENS);
    expect(await new FileStore(original).load(key)).toEqual(TOKENS);
    const copy = await folder();
    await cp(original, copy, { recursive: true });
    expect(await new FileStore(copy).load(key)).toMatchObject({
      ...TOKENS,
      copiedFrom: { dir: await realpath(original), originalHere: true },
    });
  });

  it('an entry saved before rsi recorded where is trusted; a save binds it here', async () => {
    const dir = await folder();
    await writeFile(join(dir, 'credentials.json'), JSON.stringify({ 'default https://svc.test': TOKENS }), { mode: 0o600 });
    const store = new FileStore(dir);
    expect((await store.load(key))?.copiedFrom).toBeUndefined();
    await store.save(key, { ...TOKENS, copiedFrom: { dir: '/elsewhere', host: 'other', originalHere: false } });
    const written = JSON.parse(await readFile(join(dir, 'credentials.json'), 'utf8'))['default https://svc.test'];
    expect(written.copiedFrom).toBeUndefined();
    expect(written.home.dir).toContain('rsi-copied-');
  });
});
