// Pickers: asked only where a person can answer (all three streams a terminal, RSI_NO_PROMPT unset,
// prompts not off); the project list newest first, a shared name picked by id; the signal checkbox
// offers the unanalysed ones unless --include-analysed.
import { describe, expect, it } from 'vitest';
import { canAsk, nameOrAsk, pickSignals, projectOrPick } from '../../src/commands/shared/pick.js';
import type { ApiClient } from '../../src/client/client.js';
import { UsageError } from '../../src/errors.js';
import { fakeCtx, fakeIo } from '../support/fakes.js';
import { ScriptedPrompter } from '../support/prompter.js';

const projects = [
  { id: '11111111-1111-4111-8111-111111111111', name: 'Old', role: 'owner', created_at: '2026-01-01T00:00:00Z' },
  { id: '22222222-2222-4222-8222-222222222222', name: 'Twin', role: 'editor', created_at: '2026-03-01T00:00:00Z' },
  { id: '33333333-3333-4333-8333-333333333333', name: 'Twin', role: 'viewer', created_at: '2026-02-01T00:00:00Z' },
];
const client = { listProjects: async () => ({ projects }) } as unknown as ApiClient;

describe('canAsk', () => {
  it('needs stdin, stdout and stderr terminals, and no RSI_NO_PROMPT=1', () => {
    expect(canAsk(fakeCtx(fakeIo(true)))).toBe(true);
    expect(canAsk(fakeCtx(fakeIo({ tty: true, stdoutTTY: false })))).toBe(false);
    expect(canAsk(fakeCtx(fakeIo({ tty: true, stdinTTY: false })))).toBe(false);
    expect(canAsk(fakeCtx(fakeIo(true), { env: { RSI_NO_PROMPT: '1' } }))).toBe(false);
  });
});

describe('projectOrPick', () => {
  it('keeps what was typed; without a terminal, the usage error of old', async () => {
    expect(await projectOrPick(fakeCtx(fakeIo(false)), 'P')).toBe('P');
    const error = await projectOrPick(fakeCtx(fakeIo(false)), undefined).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe("missing required argument 'project'");
    expect((error as UsageError).hint).toBe('name the project, or set a default: `rsi config set project NAME` (or RSI_PROJECT)');
  });

  it("takes RSI_PROJECT, else the profile's project setting, before asking", async () => {
    const settings = { projects: { work: 'W', default: 'D' } };
    const ctx = (env: Record<string, string>, profile: string) => ({
      ...fakeCtx(fakeIo(false), { env, globals: { profile } }),
      settings: () => settings,
    });
    expect(await projectOrPick(ctx({}, 'work'), undefined)).toBe('W');
    expect(await projectOrPick(ctx({}, 'default'), undefined)).toBe('D');
    expect(await projectOrPick(ctx({ RSI_PROJECT: 'E' }, 'work'), undefined)).toBe('E');
    expect(await projectOrPick(ctx({ RSI_PROJECT: 'E' }, 'work'), 'typed')).toBe('typed');
  });

  it('offers the projects newest first; a name two projects share is picked by id', async () => {
    const prompter = new ScriptedPrompter([{ question: /^Project/, answer: 'Twin' }]);
    const picked = await projectOrPick(fakeCtx(fakeIo(true), { client, prompter }), undefined);
    expect(prompter.offered[0]).toEqual(['Twin', 'Twin', 'Old']);
    expect(picked).toBe('22222222-2222-4222-8222-222222222222');
    const one = new ScriptedPrompter([{ question: /^Project/, answer: 'Old' }]);
    expect(await projectOrPick(fakeCtx(fakeIo(true), { client, prompter: one }), undefined)).toBe('Old');
  });
});

describe('pickSignals', () => {
  const signals = [
    { keyword_id: 'k', signal_keyword_id: 's1', name: 'EGFR', type: 'target', rank: 1, analysed: true },
    { keyword_id: 'k', signal_keyword_id: 's2', name: 'NSCLC', type: 'disease', rank: 2, analysed: false },
  ];
  it('offers the unanalysed signals by name, type and rank', async () => {
    const prompter = new ScriptedPrompter([{ question: /^Signals to analyse in "P"/, answer: ['NSCLC  (disease, rank 2)'] }]);
    const chosen = await pickSignals(fakeCtx(fakeIo(true), { prompter }), signals, { includeAnalysed: false, projectName: 'P' });
    expect(prompter.offered[0]).toEqual(['NSCLC  (disease, rank 2)']);
    expect(chosen).toEqual([{ keyword_id: 'k', signal_keyword_id: 's2' }]);
  });

  it('every signal with --include-analysed; none left: a usage error naming --include-analysed', async () => {
    const prompter = new ScriptedPrompter([{ question: /^Signals/, answer: [] }]);
    await pickSignals(fakeCtx(fakeIo(true), { prompter }), signals, { includeAnalysed: true, projectName: 'P' });
    expect(prompter.offered[0]).toEqual(['EGFR  (target, rank 1, analysed)', 'NSCLC  (disease, rank 2)']);
    const error = await pickSignals(fakeCtx(fakeIo(true)), [signals[0]!], { includeAnalysed: false, projectName: 'P' }).catch((e) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).hint).toContain('--include-analysed');
  });
});

describe('nameOrAsk', () => {
  it('asks for a non-empty name at a terminal; elsewhere --name is required', async () => {
    const prompter = new ScriptedPrompter([{ question: 'Project name', answer: 'Fibrosis' }]);
    expect(await nameOrAsk(fakeCtx(fakeIo(true), { prompter }), undefined)).toBe('Fibrosis');
    await expect(nameOrAsk(fakeCtx(fakeIo(false)), undefined)).rejects.toThrow('--name is required');
  });
});
