/**
 * Contract: `git-kb doctor` (spec/cli.md): one result per check, each with what it found and, when it is not
 * fine, the fix. Cheap and local: no network, no model call, no write (it reads the state files, the catalog and
 * the prompt index header). A check is `ok`, `warn` (works, but something is off) or `fail` (something a user
 * relies on does not work); any `fail` makes the outcome CHECK_FAILED (exit 7, spec/errors.md).
 */
import fs from 'node:fs';
import path from 'node:path';
import { KB_JSON_MAX, readRegularFile } from '../adapters/system/read-bounded.js';
import type { Settings } from '../adapters/config/settings.js';
import { readConfig, resolveDataDir } from '../adapters/config/config.js';
import { findClaude } from '../adapters/claude/find-claude.js';
import { headOid, remoteUrl } from '../adapters/git/git.js';
import { redactUrl } from '../adapters/git/remote.js';
import { checkFreshness, indexFile } from '../adapters/index/fresh.js';
import { openIndexFile } from '../adapters/index/prompt/format.js';
import { catalogProblems, loadCatalog } from '../adapters/index/catalog.js';
import { journalPending } from '../adapters/store/journal.js';
import { dataRepoExists, stateDir } from '../adapters/store/layout.js';
import { writeLockBusy } from '../adapters/store/lock.js';
import { findExecutable } from '../adapters/system/which.js';
import type { ErrorCode } from '../core/errors.js';
import { trackConflicts } from './conflicts.js';
import { hookWiring, packageRoot } from './install.js';
import { remoteSettings } from './sync-settings.js';

export interface DoctorOptions {
  data?: string;
  settings: Settings;
  /** The install whose bundle is checked (default: the running one). */
  root?: string;
}

export interface Check {
  /** Stable name: data-repo, head, manifest, conflicts, lint, journal, hooks, bundle, judge, reflect, prompt-index, remote, auth. */
  name: string;
  status: 'ok' | 'warn' | 'fail';
  /** What was found. */
  detail: string;
  /** What to do, when the status is not ok. */
  fix?: string;
}

export interface DoctorResult {
  ok: boolean;
  data_dir: string;
  checks: Check[];
  exit?: Extract<ErrorCode, 'CHECK_FAILED'>;
}

/** Runs every check. */
export async function runDoctor(options: DoctorOptions): Promise<DoctorResult> {
  const { settings } = options;
  const checks: Check[] = [];
  const add = (name: string, status: Check['status'], detail: string, fix?: string): void => void checks.push({ name, status, detail, ...(fix && status !== 'ok' ? { fix } : {}) });

  const resolved = resolveDataDir({ data: options.data, settings });
  const dir = resolved.dir;
  const why = { flag: 'from --data', env: 'from GIT_KB_DATA', config: `from ${resolved.configFile ?? 'the config'}`, default: 'the default location' }[resolved.source];
  const exists = dataRepoExists(dir);
  add('data-repo', exists ? 'ok' : 'fail', `${dir} (${why})${exists ? '' : ': no data repo there'}`, 'run "git-kb init" (or "git-kb init --default --data DIR" for another folder)');
  if (exists) await repoChecks(dir, settings, add);

  const wiring = hookWiring({ home: settings.home, claudeConfigDir: settings.claudeConfigDir });
  if (wiring.plugin && wiring.inSettings) add('hooks', 'warn', `wired twice: the plugin ${wiring.plugin} and ${wiring.settings}; each hook runs twice`, 'run "git-kb uninstall" to keep only the plugin');
  else if (wiring.plugin) add('hooks', 'ok', `the plugin ${wiring.plugin}`);
  else if (wiring.inSettings) add('hooks', 'ok', `in ${wiring.settings}`);
  else add('hooks', 'fail', 'not wired: no git-kb plugin and no git-kb hook in settings.json', 'run "claude plugin install git-kb@git-kb" (plugin) or "git-kb install" (settings.json)');

  const root = options.root ?? packageRoot();
  const missing = bundleMissing(root);
  add('bundle', missing.length ? 'fail' : 'ok', missing.length ? `${root}/dist lacks ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}` : `${path.join(root, 'dist')}`, `reinstall git-kb, or run "npm ci && npm run bundle" in ${root}`);

  if (settings.proseLint !== 'on') add('judge', 'ok', `the prose gate's model judge is off (KB_PROSE_LINT=${settings.proseLint})`);
  else {
    const claude = findClaude(settings.proseLintClaude, settings.path);
    add('judge', claude ? 'ok' : 'warn', claude ? `claude for the prose gate's judge: ${claude}` : `no ${settings.proseLintClaude ?? 'claude'} on PATH: the prose gate checks its rules but cannot ask the model judge`, 'put Claude Code\'s "claude" on PATH, or set KB_PROSE_LINT_CLAUDE to it');
  }

  if (!settings.reflect) add('reflect', 'ok', 'reflection is off (KB_REFLECT=0)');
  else {
    const claude = findClaude(settings.reflectClaude, settings.path);
    add('reflect', claude ? 'ok' : 'warn', claude ? `claude for reflection's model child: ${claude}` : `no ${settings.reflectClaude ?? 'claude'} on PATH: sessions are summarised but never reflected on (spec/reflect.md)`, 'put Claude Code\'s "claude" on PATH, or set KB_REFLECT_CLAUDE to it');
  }

  const failed = checks.some((c) => c.status === 'fail');
  return { ok: !failed, data_dir: dir, checks, ...(failed ? { exit: 'CHECK_FAILED' as const } : {}) };
}

type Add = (name: string, status: Check['status'], detail: string, fix?: string) => void;

async function repoChecks(dir: string, settings: Settings, add: Add): Promise<void> {
  const head = await headOid(dir).catch(() => undefined);
  add('head', head ? 'ok' : 'fail', head ? `HEAD is ${head.slice(0, 12)}` : 'HEAD does not resolve to a commit', `inspect the repo with "git -C ${dir} status" and "git -C ${dir} fsck"`);

  let manifest: unknown;
  try {
    manifest = JSON.parse(readRegularFile(path.join(dir, 'kb.json'), 'kb.json', KB_JSON_MAX).toString('utf8')) as unknown;
  } catch (err) {
    manifest = (err as Error).message;
  }
  const valid = typeof manifest === 'object' && manifest !== null && !Array.isArray(manifest);
  add('manifest', valid ? 'ok' : 'fail', valid ? 'kb.json is valid' : `kb.json is not a JSON object (${typeof manifest === 'string' ? manifest : 'wrong shape'})`, `restore it: "git -C ${dir} checkout kb.json"`);

  const conflicts = trackConflicts(dir).length;
  add('conflicts', conflicts ? 'fail' : 'ok', conflicts ? `${conflicts} unresolved sync conflict${conflicts === 1 ? '' : 's'}` : 'no unresolved sync conflicts', 'settle them with "git-kb resolve ID --keep ours|theirs|both" (git-kb sync lists them)');

  try {
    const problems = catalogProblems(await loadCatalog(dir)).length;
    add('lint', problems ? 'warn' : 'ok', problems ? `${problems} problem${problems === 1 ? '' : 's'} in the entries` : 'no problems in the entries', 'run "git-kb lint" to list them');
  } catch (err) {
    add('lint', 'fail', `the entries cannot be read: ${(err as Error).message.split('\n')[0]}`, 'run "git-kb lint"');
  }

  const journal = journalPending(dir);
  const lockFile = path.join(stateDir(dir), 'write.lock');
  const busy = writeLockBusy(dir);
  const leftLock = !busy && fs.existsSync(lockFile);
  if (journal || leftLock) {
    const what = [journal ? 'an unfinished write journal' : '', leftLock ? 'a write lock whose holder is gone' : ''].filter(Boolean).join(' and ');
    add('journal', 'warn', `${what} in .git/git-kb/`, 'the next git-kb write finishes it (for example "git-kb session catch-up")');
  } else add('journal', 'ok', busy ? 'a write is running' : 'no unfinished write');

  const reader = (() => {
    try {
      return openIndexFile(indexFile(dir));
    } catch {
      return undefined;
    }
  })();
  if (!reader) add('prompt-index', 'warn', 'no prompt index yet', 'the next prompt builds it');
  else {
    const fresh = checkFreshness(dir, reader);
    reader.close();
    add('prompt-index', fresh.fresh ? 'ok' : 'warn', fresh.fresh ? 'the prompt index is fresh' : `the prompt index is stale (${fresh.reason})`, 'the next prompt rebuilds it');
  }

  const loose = looseObjects(dir);
  const mib = (n: number): string => `${(n / 2 ** 20).toFixed(n < 10 * 2 ** 20 ? 1 : 0)} MiB`;
  const heavy = loose.count >= LOOSE_MAX_COUNT || loose.bytes >= LOOSE_MAX_BYTES;
  add('objects', heavy ? 'warn' : 'ok', `${loose.count} loose git object${loose.count === 1 ? '' : 's'}, ${mib(loose.bytes)}${heavy ? ': each write stores the whole tree of its entry folder again, and nothing packs them' : ''}`, `run "git -C ${dir} gc": it packs them with deltas, which git-kb reads`);

  const url = await remoteUrl(dir).catch(() => undefined);
  if (!url) {
    add('remote', 'warn', 'no remote: the data repo lives on this machine only', 'run "git-kb init --remote URL", then "git-kb sync"');
    return;
  }
  add('remote', 'ok', `origin ${redactUrl(url)}`);
  const transport = remoteSettings(settings, readConfig(settings));
  if (/^https?:/i.test(url)) {
    const inUrl = /^https?:\/\/[^/@]+@/i.test(url);
    const token = Boolean(transport.token) || inUrl;
    add('auth', token ? 'ok' : 'warn', token ? `a token for ${new URL(url).host}` : 'no token (GIT_KB_TOKEN, or "token" in the config)', 'set GIT_KB_TOKEN or the config\'s "token" if the remote is private');
  } else {
    const git = findExecutable('git', settings.path);
    add('auth', git ? 'ok' : 'fail', git ? `the system git for ${url.split(':')[0]} remotes: ${git}` : 'an ssh or local remote needs the system git, and none is on PATH', 'install git, or use an https remote');
  }
}

/** Past these the `objects` check warns: git's own `gc.auto` count, or a size that dwarfs a packed repo. */
const LOOSE_MAX_COUNT = 6700;
const LOOSE_MAX_BYTES = 256 * 2 ** 20;

/** The loose objects of the repo: how many, and their bytes on disk. */
function looseObjects(dir: string): { count: number; bytes: number } {
  let count = 0;
  let bytes = 0;
  const objects = path.join(dir, '.git', 'objects');
  let fans: string[] = [];
  try {
    fans = fs.readdirSync(objects).filter((d) => /^[0-9a-f]{2}$/.test(d));
  } catch {
    return { count, bytes };
  }
  for (const fan of fans) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(objects, fan));
    } catch {
      continue;
    }
    for (const n of names) {
      const st = fs.statSync(path.join(objects, fan, n), { throwIfNoEntry: false });
      if (!st?.isFile()) continue;
      count++;
      bytes += st.size;
    }
  }
  return { count, bytes };
}

/** The files of dist/ the CLI and the hooks need that are missing: the entries and every chunk of this build. */
function bundleMissing(root: string): string[] {
  const dist = path.join(root, 'dist');
  const need = ['package.json', 'cli.js', 'hook.cjs', 'hooks/gate.js', 'hooks/prompt-build.js', 'hooks/session.js', 'workers/count.js'];
  try {
    for (const line of fs.readFileSync(path.join(dist, 'chunks', '.gitignore'), 'utf8').split('\n')) {
      if (line.startsWith('!') && line !== '!.gitignore') need.push(`chunks/${line.slice(1)}`);
    }
  } catch {
    need.push('chunks/.gitignore');
  }
  return need.filter((f) => !fs.existsSync(path.join(dist, f)));
}
