// Forgiving inputs where the intent is clear: /api/v1 on a base URL, kebab or snake relation names,
// comma lists for repeatable flags, --activity only with sponsors, signals selected by name.
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { normaliseBaseUrl } from '../../src/auth/base-url.js';
import type { ApiClient } from '../../src/client/client.js';
import { resolveSelectNames } from '../../src/ops/analyses.js';
import * as login from '../../src/commands/login/login.js';
import * as keywordsGet from '../../src/commands/keywords/get/get.js';
import * as relations from '../../src/commands/keywords/relations/relations.js';
import { relationName } from '../../src/commands/keywords/relations/relation-list.js';
import * as create from '../../src/commands/projects/create/create.js';
import { AmbiguousNameError, UsageError } from '../../src/errors.js';
import { fakeClient } from '../support/commands.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';

/** Parses argv through a command's real builder and returns what its action handed to runF. */
async function captured<T>(build: (ctx: ReturnType<typeof fakeCtx>, runF: (o: T) => Promise<void>) => Command, argv: string[]): Promise<T> {
  let seen: T | undefined;
  const cmd = build(fakeCtx(fakeIo(), 'tsv'), async (o) => {
    seen = o;
  }).exitOverride();
  await cmd.parseAsync(argv, { from: 'user' });
  return seen as T;
}

describe('base URL', () => {
  it('takes the base out of a URL ending in /api/v1', () => {
    expect(normaliseBaseUrl('http://127.0.0.1:8765/api/v1')).toBe('http://127.0.0.1:8765');
    expect(normaliseBaseUrl('https://rsi.example.com/tenant/api/v1/')).toBe('https://rsi.example.com/tenant');
    expect(normaliseBaseUrl('https://rsi.example.com/api')).toBe('https://rsi.example.com/api');
  });
});

describe('relation names', () => {
  it.each([
    ['pipeline-targets', 'pipeline_targets'],
    ['Pipeline_Targets', 'pipeline_targets'],
    ['pipeline target', 'pipeline_targets'],
    ['sponsor', 'sponsors'],
    ['INDICATIONS', 'indications'],
  ])('%s → %s', (raw, want) => expect(relationName(raw)).toBe(want));

  it('accepts them on the command line', async () => {
    const o = await captured<relations.RelationsOptions>(relations.build as never, ['EGFR', '--relation', 'pipeline-targets']);
    expect(o.relations).toEqual([{ relation: 'pipeline_targets' }]);
  });

  it('refuses --activity with a relation other than sponsors (exit 2)', async () => {
    const err = await captured(relations.build as never, ['EGFR', '--relation', 'indications', '--activity', 'trials']).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toBe('--activity only applies with --relation sponsors (got --relation indications)');
  });
});

describe('comma lists for repeatable flags', () => {
  it('--goal target,modality', async () => {
    const o = await captured<create.CreateOptions>(create.build as never, [
      '--name',
      'X',
      '--goal',
      'target,Modality',
      '--goal',
      'indication',
    ]);
    expect(o.goals).toEqual(['target', 'modality', 'indication']);
  });

  it('--goal still refuses an unknown value', async () => {
    const err = await captured(create.build as never, ['--name', 'X', '--goal', 'target,bogus']).catch((e) => e);
    expect(err).toBeInstanceOf(UsageError);
  });

  it('--include a,b and repeated, kebab case too', async () => {
    const o = await captured<{ include: string[] }>(keywordsGet.build as never, [
      'EGFR',
      '--include',
      'indications,pipeline-targets',
      '--include',
      'sponsors',
    ]);
    expect(o.include).toEqual(['indications', 'pipeline_targets', 'sponsors']);
  });

  it('--scope a,b and --add-scope', async () => {
    const o = await captured<login.LoginCommandOptions>(login.build as never, [
      '--scope',
      'service:read,projects:write',
      '--add-scope',
      'analyses:run',
    ]);
    expect(o.scopes).toEqual(['service:read', 'projects:write']);
    expect(o.addScopes).toEqual(['analyses:run']);
  });
});

describe('--select by name', () => {
  const K = '11111111-1111-4111-8111-111111111111';
  const K2 = '22222222-2222-4222-8222-222222222222';
  const S1 = 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa';
  const S2 = 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb';
  const project = { id: 'p', name: 'KRAS inhibitors' };
  let listed = 0;
  const { client } = fakeClient({
    listSignals: async () => {
      listed++;
      return {
        signals: [
          { keyword_id: K, signal_keyword_id: S1, name: 'Kinase inhibitor' },
          { keyword_id: K, signal_keyword_id: S2, name: 'CTLA-4' },
          { keyword_id: K2, signal_keyword_id: S2, name: 'CTLA-4' },
        ],
      };
    },
  });
  const signal = new AbortController().signal;

  it('resolves an unambiguous name, case-insensitive', async () => {
    expect(
      await resolveSelectNames([{ keyword_id: '', signal_keyword_id: 'kinase INHIBITOR' }], client as ApiClient, project, signal),
    ).toEqual([{ keyword_id: K, signal_keyword_id: S1 }]);
  });

  it('KEYWORD_ID:NAME picks among several keywords', async () => {
    expect(await resolveSelectNames([{ keyword_id: K2, signal_keyword_id: 'ctla-4' }], client as ApiClient, project, signal)).toEqual([
      { keyword_id: K2, signal_keyword_id: S2 },
    ]);
  });

  it('an ambiguous or unknown name is exit 2 listing the candidates', async () => {
    const err = await resolveSelectNames([{ keyword_id: '', signal_keyword_id: 'CTLA-4' }], client as ApiClient, project, signal).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(AmbiguousNameError);
    expect((err as AmbiguousNameError).candidates).toHaveLength(2);
    const none = await resolveSelectNames([{ keyword_id: '', signal_keyword_id: 'nope' }], client as ApiClient, project, signal).catch(
      (e) => e,
    );
    expect(none).toBeInstanceOf(AmbiguousNameError);
  });

  it('ids are sent as given, without listing signals', async () => {
    listed = 0;
    const ids = [{ keyword_id: K, signal_keyword_id: S1 }];
    expect(await resolveSelectNames(ids, client as ApiClient, project, signal)).toBe(ids);
    expect(listed).toBe(0);
  });
});
