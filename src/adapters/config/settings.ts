/**
 * Contract: every environment variable git-kb reads, parsed in one place into a typed Settings (README,
 * "Configuration"). Only the composition roots (the CLI's main, the hook entry, the MCP server) call
 * readSettings; everything below them gets the fields it needs as arguments. One boolean parser serves every
 * switch, so `yes`, `on`, `true` and `1` mean the same to all of them.
 */
import os from 'node:os';
import path from 'node:path';

/** True for 1/true/yes/on, false for 0/false/no/off (any case, spaces ignored), undefined otherwise. */
export function parseBool(value: string | undefined): boolean | undefined {
  const v = (value ?? '').trim().toLowerCase();
  if (/^(1|true|yes|on)$/.test(v)) return true;
  if (/^(0|false|no|off)$/.test(v)) return false;
  return undefined;
}

/** A number of at least `min` from a variable, or the default when unset or not such a number. */
export function parseNumber(value: string | undefined, fallback: number, min = 0): number {
  const n = Number(value);
  return value !== undefined && value.trim() !== '' && Number.isFinite(n) && n >= min ? n : fallback;
}

/** The prose gate's mode: off, layer 1 only (rules), or both layers. */
export type ProseLintMode = 'off' | 'rules' | 'on';

export interface Settings {
  /** The user's home (HOME, else the OS's idea of it). */
  home: string;
  /** XDG_CONFIG_HOME, else ~/.config. */
  xdgConfigHome: string;
  /** CLAUDE_PLUGIN_DATA: the plugin's own data folder, when run by Claude Code as a plugin. */
  pluginData?: string;
  /** CLAUDE_PLUGIN_ROOT: the installed plugin's folder, when run by Claude Code as a plugin. */
  pluginRoot?: string;
  /** GIT_KB_DATA. */
  dataDir?: string;
  /** CLAUDE_CONFIG_DIR, else ~/.claude. */
  claudeConfigDir: string;
  /** KB_HOOK_DEBUG, and where the log goes (KB_HOOK_DEBUG_FILE, else <tmp>/git-kb-hooks-<uid>/debug.jsonl). */
  hookDebug: boolean;
  hookDebugFile: string;
  /** True when hookDebugFile is the default one, in the shared temp folder. */
  hookDebugShared: boolean;
  /** KB_PROSE_LINT (0/false/no/off: off; rules: layer 1 only; anything else: on). */
  proseLint: ProseLintMode;
  /** KB_PROSE_LINT_MODEL, KB_PROSE_LINT_TIMEOUT_MS (default 45 s), KB_PROSE_LINT_CLAUDE (the judge's executable). */
  proseLintModel?: string;
  proseLintTimeoutMs: number;
  proseLintClaude?: string;
  /** KB_REFLECT=0 turns reflection off (spec/reflect.md); KB_REFLECT_MODEL, KB_REFLECT_TIMEOUT_MS (default 120 s), KB_REFLECT_CLAUDE (the child's executable). */
  reflect: boolean;
  reflectModel?: string;
  reflectTimeoutMs: number;
  reflectClaude?: string;
  /** KB_PROMPT_BUILD_BUDGET_MS: a prompt index rebuild estimated above this runs in the background (default: see prompt/load.ts). */
  promptBuildBudgetMs?: number;
  /** KB_SESSIONS=0 turns the session hooks off. */
  sessions: boolean;
  /** KB_SESSION_DEBOUNCE_S (default 300) and KB_SESSION_CATCHUP_MIN (default 10). */
  sessionDebounceS: number;
  sessionCatchupMin: number;
  /**
   * The transcript archive (spec/sessions.md, "Archive"): KB_ARCHIVE=0 turns it off; KB_ARCHIVE_DIR (default
   * ~/.git-kb/archive); KB_ARCHIVE_DAYS, how long an archived transcript is kept after its last change (default 365;
   * 0 keeps them for ever).
   */
  archive: boolean;
  archiveDir: string;
  archiveDays: number;
  /** KB_BUDGET_BLOCK=0 stops the Stop hook from blocking a turn over a budget; KB_BUDGET_COOLDOWN_MIN (default 360) between blocks per budget. */
  budgetBlock: boolean;
  budgetCooldownMin: number;
  /** GIT_KB_AUTO_SYNC: on, off, or undefined (the config file decides). */
  autoSync?: boolean;
  /** GIT_KB_TOKEN and GIT_KB_USERNAME, for HTTP(S) remotes. */
  token?: string;
  username?: string;
  /** GIT_AUTHOR_NAME / GIT_AUTHOR_EMAIL for commits. */
  authorName?: string;
  authorEmail?: string;
  /** PATH, for finding `git` and `claude`. */
  path: string;
  /** GIT_SSH_COMMAND / GIT_SSH: an ssh remote is handed to the system git with these. */
  gitSsh?: string;
  /** VISUAL, else EDITOR: the editor `edit` and `add` open (unset: `vi`, only on a terminal). */
  editor?: string;
  /** PAGER: what long human output on a terminal goes through (unset: `less -FRX`; empty or `cat`: none). */
  pager?: string;
  /**
   * Colour in human output (src/cli/render/colour.ts): `never` when NO_COLOR is set and not empty, FORCE_COLOR is
   * `0` or `false`, or TERM is `dumb`; `always` when FORCE_COLOR is set to anything else; else `auto` (a terminal).
   */
  color: 'never' | 'always' | 'auto';
  /** The raw environment, for child processes only (never read a variable from it: add a field above). */
  env: NodeJS.ProcessEnv;
}

function colorSetting(env: NodeJS.ProcessEnv): Settings['color'] {
  if (env.NO_COLOR) return 'never';
  const force = (env.FORCE_COLOR ?? '').trim().toLowerCase();
  if (force) return force === '0' || force === 'false' ? 'never' : 'always';
  return env.TERM === 'dumb' ? 'never' : 'auto';
}

/** The debug log when KB_HOOK_DEBUG_FILE is not set: `<tmp>/git-kb-hooks-<uid>/debug.jsonl`, one folder per user. */
function defaultDebugFile(): string {
  const uid = process.getuid?.();
  return path.join(os.tmpdir(), uid === undefined ? 'git-kb-hooks' : `git-kb-hooks-${uid}`, 'debug.jsonl');
}

/** Parses the environment once. */
export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const home = env.HOME || os.homedir();
  const lint = (env.KB_PROSE_LINT ?? '').trim().toLowerCase();
  return {
    home,
    xdgConfigHome: env.XDG_CONFIG_HOME || path.join(home, '.config'),
    pluginData: env.CLAUDE_PLUGIN_DATA || undefined,
    pluginRoot: env.CLAUDE_PLUGIN_ROOT || undefined,
    dataDir: env.GIT_KB_DATA || undefined,
    claudeConfigDir: env.CLAUDE_CONFIG_DIR || path.join(home, '.claude'),
    hookDebug: parseBool(env.KB_HOOK_DEBUG) === true,
    hookDebugFile: env.KB_HOOK_DEBUG_FILE || defaultDebugFile(),
    hookDebugShared: !env.KB_HOOK_DEBUG_FILE,
    proseLint: parseBool(lint) === false ? 'off' : lint === 'rules' ? 'rules' : 'on',
    proseLintModel: env.KB_PROSE_LINT_MODEL || undefined,
    proseLintTimeoutMs: parseNumber(env.KB_PROSE_LINT_TIMEOUT_MS, 45_000, 1),
    proseLintClaude: env.KB_PROSE_LINT_CLAUDE || undefined,
    reflect: parseBool(env.KB_REFLECT) !== false,
    reflectModel: env.KB_REFLECT_MODEL || undefined,
    reflectTimeoutMs: parseNumber(env.KB_REFLECT_TIMEOUT_MS, 120_000, 1),
    reflectClaude: env.KB_REFLECT_CLAUDE || undefined,
    color: colorSetting(env),
    ...(env.KB_PROMPT_BUILD_BUDGET_MS ? { promptBuildBudgetMs: parseNumber(env.KB_PROMPT_BUILD_BUDGET_MS, 2500, 0) } : {}),
    sessions: parseBool(env.KB_SESSIONS) !== false,
    sessionDebounceS: parseNumber(env.KB_SESSION_DEBOUNCE_S, 300),
    sessionCatchupMin: parseNumber(env.KB_SESSION_CATCHUP_MIN, 10),
    archive: parseBool(env.KB_ARCHIVE) !== false,
    archiveDir: env.KB_ARCHIVE_DIR || path.join(home, '.git-kb', 'archive'),
    archiveDays: parseNumber(env.KB_ARCHIVE_DAYS, 365),
    budgetBlock: parseBool(env.KB_BUDGET_BLOCK) !== false,
    budgetCooldownMin: parseNumber(env.KB_BUDGET_COOLDOWN_MIN, 360),
    autoSync: parseBool(env.GIT_KB_AUTO_SYNC),
    token: env.GIT_KB_TOKEN || undefined,
    username: env.GIT_KB_USERNAME || undefined,
    authorName: env.GIT_AUTHOR_NAME || undefined,
    authorEmail: env.GIT_AUTHOR_EMAIL || undefined,
    path: env.PATH ?? '',
    gitSsh: env.GIT_SSH_COMMAND || env.GIT_SSH || undefined,
    editor: env.VISUAL?.trim() || env.EDITOR?.trim() || undefined,
    pager: env.PAGER,
    env,
  };
}
