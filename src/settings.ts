/**
 * The settings a person keeps with `rsi config set` instead of retyping them, and the check of each
 * value; written once, here. Flags and environment still win over every one of them (docs/commands.md,
 * "Settings"). A leaf beside src/formats.ts: the config store checks the file against these schemas,
 * and `rsi config` and `rsi auth switch` check what a person typed, each importing this module
 * rather than reaching one through the other.
 */
import * as z from 'zod/mini';
import { en } from 'zod/locales';
import { UsageError } from './errors.js';
import { formatChoices, OUTPUT_FORMATS } from './formats.js';

export const SETTING_KEYS = ['format', 'pager', 'profile', 'project', 'prompts', 'time'] as const;
export type SettingKey = (typeof SETTING_KEYS)[number];

/**
 * The schemas, built on first use rather than at import: most runs with RSI_TOKEN have no config
 * file to read, and building the file's schemas cost ~5 ms (docs/performance.md, round 3).
 */
export const settingSchemas = (() => {
  let built: ReturnType<typeof build> | undefined;
  function build() {
    // zod/mini (methodless schemas, cheap to build) with zod's English messages.
    z.config(en());
    // What a person would type as <project>: a name or UUID, one line.
    const ProjectName = z.string().check(
      z.minLength(1),
      z.maxLength(500),
      z.refine((v) => v.trim() !== '' && !/[\u0000-\u001f\u007f]/.test(v), 'a project name or UUID on one line'),
    );
    const Settings = z.object({
      format: z.optional(z.enum(OUTPUT_FORMATS)),
      pager: z.optional(z.string().check(z.minLength(1))),
      profile: z.optional(z.string().check(z.regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/))),
      prompts: z.optional(z.enum(['on', 'off'])),
      time: z.optional(z.enum(['relative', 'absolute'])),
      /** The default project, per profile (gh's repository context, kubectl's namespace). */
      projects: z.optional(z.record(z.string(), ProjectName)),
    });
    return { ProjectName, Settings };
  }
  return () => (built ??= build());
})();

export type Settings = z.infer<ReturnType<typeof settingSchemas>['Settings']>;

/** `key` as a setting's name, or a usage error that lists them. */
export function settingKey(key: string): SettingKey {
  if ((SETTING_KEYS as readonly string[]).includes(key)) return key as SettingKey;
  throw new UsageError(`unknown setting "${key}": the settings are ${SETTING_KEYS.join(', ')}`);
}

/** Checks one setting's value; the message names what is allowed. */
export function parseSetting(key: SettingKey, value: string): string {
  const { ProjectName, Settings } = settingSchemas();
  const parsed = (key === 'project' ? ProjectName : Settings.shape[key]).safeParse(value);
  if (parsed.success) return value;
  const allowed: Record<SettingKey, string> = {
    format: formatChoices(),
    pager: 'a command, such as "less -FRX" (cat: no pager)',
    profile: 'a profile name: letters, digits, ".", "_" or "-"',
    project: 'a project name or UUID on one line',
    prompts: 'on or off',
    time: 'relative or absolute',
  };
  throw new UsageError(`${key} must be ${allowed[key]} (got "${value}")`);
}
