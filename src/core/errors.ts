/**
 * Contract: every failure git-kb reports on purpose is a KbError with a stable `code`; the exit code is a
 * function of the code alone (spec/errors.md). Only src/cli/main.ts prints errors and exits.
 */

/** Stable error codes, grouped by the exit code they map to. */
export const EXIT_CODES = {
  INTERNAL: 1,
  // `compact check` only, like `git diff --exit-code`: 1 = the rewrite has defects, 2 = nothing could be graded.
  COMPACT_DEFECTS: 1,
  CANNOT_GRADE: 2,
  USAGE: 2,
  UNKNOWN_VERB: 2,
  UNKNOWN_OPTION: 2,
  // The editor session of `edit`/`add` ended without a write: the editor failed, the body was left empty, or
  // the user chose to abort after a refused save.
  ABORTED: 2,
  NOT_FOUND: 3,
  NO_DATA_REPO: 3,
  CONFLICT: 4,
  LOCK_TIMEOUT: 4,
  MERGE_CONFLICT: 4,
  // The file system refused: a read-only data repo or mount, no permission, no space left.
  NOT_WRITABLE: 4,
  INVALID_ENTRY: 5,
  SECRET_DETECTED: 5,
  LINT_FAILED: 5,
  FORBIDDEN_HOST: 5,
  SYNC_FAILED: 6,
  AUTH_FAILED: 6,
  NETWORK: 6,
  PUSH_REJECTED: 6,
  UNSUPPORTED_REMOTE: 6,
  CHECK_FAILED: 7,
} as const;

export type ErrorCode = keyof typeof EXIT_CODES;

/** Where a problem sits: a file (relative to the data repo when inside it), and a 1-based line. */
export interface Place {
  file?: string;
  line?: number;
}

/** An expected failure: a stable code, a message that says what, where and what to do, and extra data. */
export class KbError extends Error {
  readonly code: ErrorCode;
  readonly data: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, data: Record<string, unknown> = {}) {
    super(message);
    this.name = 'KbError';
    this.code = code;
    this.data = data;
  }

  /** The process exit code for this error (spec/errors.md). */
  get exitCode(): number {
    return EXIT_CODES[this.code];
  }
}

/**
 * A repo path as text output shows it: as it is, or quoted with JSON's escapes when it holds a control character
 * (a synced file named "notes\nok: 0 problems.md" would otherwise print a line of its own, and terminalSafe keeps
 * newlines, which output needs).
 */
export function shownPath(p: string): string {
  // eslint-disable-next-line no-control-regex
  return /[\x00-\x1f\x7f]/.test(p) ? JSON.stringify(p) : p;
}

/**
 * An error's message without the `file:line: ` it starts with (the problem it becomes carries the place): cut by
 * the place the error holds, so a file name with a colon or a newline in it is cut whole.
 */
export function messageWithoutPlace(err: { message: string; data?: { file?: unknown; line?: unknown } }): string {
  const data = err.data;
  const place = typeof data?.file === 'string' && typeof data.line === 'number' ? `${data.file}:${data.line}: ` : undefined;
  if (place && err.message.startsWith(place)) return err.message.slice(place.length);
  return err.message.replace(/^[^:\n]+:\d+: /, '');
}

/**
 * Formats problems one per line as `file:line: message [rule]` (the line left out when unknown). A message is one
 * line: a control character in it (a file name or link target it quotes) is shown by JSON's escape.
 */
export function formatProblems(problems: (Place & { message: string; rule: string })[]): string {
  // eslint-disable-next-line no-control-regex
  const oneLine = (m: string): string => m.replace(/[\x00-\x1f\x7f]/g, (c) => JSON.stringify(c).slice(1, -1));
  return problems.map((p) => `${p.file === undefined ? '' : shownPath(p.file)}${p.line ? `:${p.line}` : ''}: ${oneLine(p.message)} [${p.rule}]`).join('\n');
}

/** True when `err` is a KbError, optionally with the given code. */
export function isKbError(err: unknown, code?: ErrorCode): err is KbError {
  return err instanceof KbError && (code === undefined || err.code === code);
}

/** What the file system's refusals mean to a user, by errno code. */
const SYSTEM_REFUSALS: Record<string, string> = {
  EROFS: 'the file system is read-only',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is exceeded',
};

/**
 * A file system refusal (a read-only repo or mount, no permission, a full disk) as a KbError naming the path and
 * what to do; undefined for anything else (a bug, reported as INTERNAL with its stack).
 */
export function systemRefusal(err: unknown): KbError | undefined {
  const e = err as NodeJS.ErrnoException | undefined;
  const why = e && typeof e.code === 'string' ? SYSTEM_REFUSALS[e.code] : undefined;
  if (!why) return undefined;
  const where = typeof e!.path === 'string' ? ` ${e!.path}` : '';
  const verb = e!.syscall ? `${e!.syscall}` : 'access';
  return new KbError('NOT_WRITABLE', `cannot ${verb}${where}: ${why} (${e!.code}); check the data repo's permissions and free space, or choose another with --data`, { code: e!.code, ...(where ? { file: e!.path } : {}) });
}
