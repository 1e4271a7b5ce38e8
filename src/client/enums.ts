/**
 * The service's enumerations (shared/service-api.md), declared once: the client's schemas, the
 * flags that take them, shell completion and the MCP server's tool schemas all read them here. Kept
 * apart from schemas.ts so a command's flag help can name them without loading zod.
 */

/** A signal's type, and what `--top --type` picks. */
export const TOP_TYPES = ['target', 'disease', 'modality', 'mechanism'] as const;
/** How the service chooses the top signals to analyse. */
export const ANALYSIS_MODES = ['most_promising', 'novel_signal_scout', 'validated_opportunity'] as const;
/** `GET /keywords/{id}/relations?relation=`. */
export const RELATIONS = ['indications', 'assets', 'pipeline_targets', 'sponsors'] as const;
/** `activity=`, with the `sponsors` relation. */
export const ACTIVITIES = ['trials', 'papers', 'patents'] as const;
/** A project's goals. */
export const GOALS = ['target', 'indication', 'modality'] as const;
/** How a project's watchlist items combine. */
export const OPERANDS = ['$and', '$or'] as const;
