/**
 * Whether this run is a CI job: CI services set one of these (gh's list). In CI nobody reads a
 * notice or a live progress line, so the update notice and `fetched N of M` stay off there. One
 * home for the list: the update notice, the walk progress and the tests' clean environment read it.
 */
export const CI_VARIABLES = ['CI', 'BUILD_NUMBER', 'RUN_ID'] as const;

/** Set and not "false" (`CI=false` is how a user says "not CI" to tools that read it). */
export function inCI(env: Readonly<Record<string, string | undefined>>): boolean {
  return CI_VARIABLES.some((name) => (env[name] ?? '') !== '' && env[name] !== 'false');
}
