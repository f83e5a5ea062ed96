/**
 * Contract: `git-kb doctor` (spec/cli.md): one result per check, each with what it found and, when it is not
 * fine, the fix. Cheap and local: no network, no model call, no write (it reads the state files, the catalog and
 * the prompt index header; the hook probe runs each wired hook command once in a temporary folder it removes). A check is `ok`, `warn` (works, but something is off) or `fail` (something a user
 * relies on does not work); any `fail` makes the outcome CHECK_FAILED (exit 7, spec/errors.md).
 */
import { initCommand } from '../adapters/system/init-hint.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Settings } from '../adapters/config/settings.js';
import { configRemote, readConfig, resolveDataDir } from '../adapters/config/config.js';
import { findClaude } from '../adapters/claude/find-claude.js';
import { headOid, remoteUrl } from '../adapters/git/git.js';
import { redactUrl } from '../adapters/git/remote.js';
import { checkFreshness, indexFile } from '../adapters/index/fresh.js';
import { openIndexFile } from '../adapters/index/prompt/format.js';
import { catalogProblems, loadCatalog } from '../adapters/index/catalog.js';
import { journalPending } from '../adapters/store/journal.js';
import { dataRepoExists, linkedEntryFolders, stateDir } from '../adapters/store/layout.js';
import { writeLockBusy } from '../adapters/store/lock.js';
import { findExecutable } from '../adapters/system/which.js';
import type { ErrorCode } from '../core/errors.js';
import { trackConflicts } from './conflicts.js';
import { manifestProblems } from './lint.js';
import type { HookRun } from '../adapters/claude/hook-run.js';
import { hookWiring, packageRoot, pluginLoad, wiredHooks, type PluginLoad, type WiredHook } from './install.js';
import { remoteSettings } from './sync-settings.js';

export interface DoctorOptions {
  data?: string;
  settings: Settings;
  /** The install whose bundle is checked (default: the running one). */
  root?: string;
}

export interface Check {
  /** Stable name: data-repo, head, manifest, conflicts, lint, journal, hooks, plugin, bundle, hook-run, judge, reflect, prompt-index, objects, remote, auth. */
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
  // NOTE: no folder yet is the state of a fresh install (the first write creates the repo): a warning. A folder
  // that is there and is not a data repo is a wrong path or a damaged repo: a failure.
  if (exists) add('data-repo', 'ok', `${dir} (${why})`);
  else if (!fs.existsSync(dir) || isEmptyDir(dir)) add('data-repo', 'warn', `${dir} (${why}): not created yet; the first write ("git-kb add") creates it`, 'run "git-kb init" to create it now, or "git-kb init --clone URL" to start from another machine\'s');
  else add('data-repo', 'fail', `${dir} (${why}): a folder that is not a data repo`, 'run "git-kb init" to make it one (or "git-kb init --default --data DIR" for another folder)');
  if (exists) await repoChecks(dir, settings, add);

  const wiring = hookWiring({ home: settings.home, claudeConfigDir: settings.claudeConfigDir });
  if (wiring.plugin && wiring.inSettings) add('hooks', 'warn', `wired twice: the plugin ${wiring.plugin} and ${wiring.settings}; each hook runs twice`, 'run "git-kb uninstall" to keep only the plugin');
  else if (wiring.plugin) add('hooks', 'ok', `the plugin ${wiring.plugin}`);
  else if (wiring.inSettings) add('hooks', 'ok', `in ${wiring.settings}`);
  else add('hooks', 'fail', 'not wired: no git-kb plugin and no git-kb hook in settings.json', 'run "claude plugin install git-kb@git-kb" (plugin) or "git-kb install" (settings.json)');

  // NOTE: Claude Code's own records, not the install this doctor runs from: a plugin added from a local folder
  // that was moved or deleted since no longer loads, though its installed copy is still there. Not shown when the
  // plugin is not installed (hooks in settings.json, or the CLI alone).
  const load = wiring.plugin ? pluginLoad({ home: settings.home, claudeConfigDir: settings.claudeConfigDir }) : undefined;
  if (load?.problem) add('plugin', 'fail', load.problem.detail, load.problem.fix);
  else if (load) add('plugin', 'ok', `${load.plugin}, from the marketplace ${load.marketplace}${load.source ? ` (${load.source})` : ''}${load.folder ? `, read from ${load.folder}` : ''}`);

  const root = options.root ?? packageRoot();
  const missing = bundleMissing(root);
  add('bundle', missing.length ? 'fail' : 'ok', missing.length ? `${root} lacks ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ` and ${missing.length - 3} more` : ''}` : `${path.join(root, 'dist')}`, reinstallFix(root, settings));

  await hookRunCheck(wiring, load, settings, root, add);

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

function isEmptyDir(dir: string): boolean {
  try {
    return fs.readdirSync(dir).length === 0;
  } catch {
    return false;
  }
}

type Add = (name: string, status: Check['status'], detail: string, fix?: string) => void;

async function repoChecks(dir: string, settings: Settings, add: Add): Promise<void> {
  const head = await headOid(dir).catch(() => undefined);
  add('head', head ? 'ok' : 'fail', head ? `HEAD is ${head.slice(0, 12)}` : 'HEAD does not resolve to a commit', `inspect the repo with "git -C ${dir} status" and "git -C ${dir} fsck"`);

  // One check of kb.json, lint's (its file and line); a missing one is doctor's alone to say (lint has no file to point to).
  const [problem] = fs.existsSync(path.join(dir, 'kb.json')) ? manifestProblems(dir) : [{ message: 'kb.json is missing', line: 1 }];
  add('manifest', problem ? 'fail' : 'ok', problem ? `${problem.message} (kb.json:${problem.line})` : 'kb.json is valid', `restore it: "git -C ${dir} checkout kb.json"`);

  const conflicts = trackConflicts(dir).length;
  add('conflicts', conflicts ? 'fail' : 'ok', conflicts ? `${conflicts} unresolved sync conflict${conflicts === 1 ? '' : 's'}` : 'no unresolved sync conflicts', 'settle them with "git-kb resolve ID --keep ours|theirs|both" (git-kb sync lists them)');

  try {
    const problems = catalogProblems(await loadCatalog(dir)).length + linkedEntryFolders(dir).length;
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

  const config = readConfig(settings);
  const own = await remoteUrl(dir).catch(() => undefined);
  // NOTE: a remote named only in the config file is the one sync uses (it sets it as origin on the first sync).
  const url = own ?? configRemote(config);
  if (!url) {
    add('remote', 'warn', 'no remote: the data repo lives on this machine only', `run "${initCommand(dir)} --remote URL", then "git-kb sync"`);
    return;
  }
  add('remote', 'ok', own ? `origin ${redactUrl(url)}` : `${redactUrl(url)} (from the config; the first "git-kb sync" sets it as origin)`);
  const transport = remoteSettings(settings, config);
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

/** What the bin/ scripts start: the CLI, the hook entry and its on-demand handlers, the counting worker, the code cache. */
const BUNDLE_ENTRIES = ['bin/git-kb', 'bin/git-kb-hook', 'hooks/hooks.json', 'dist/package.json', 'dist/code-cache.cjs', 'dist/cli.js', 'dist/hook.cjs', 'dist/hooks/gate.js', 'dist/hooks/prompt-build.js', 'dist/hooks/session.js', 'dist/workers/count.js'];

/**
 * The files of the install the CLI and the hooks need that are missing (paths relative to `root`): the entries,
 * and every file they require, followed from file to file (the `require("./…")` calls of the built CommonJS).
 * NOTE: what really runs, rather than a list kept beside the build: dist/chunks/.gitignore names the build's own
 * chunks for git and `npm pack`, but npm renames a package's .gitignore files to .npmignore when it installs one.
 */
function bundleMissing(root: string): string[] {
  const missing: string[] = [];
  const seen = new Set<string>();
  const queue = [...BUNDLE_ENTRIES];
  while (queue.length) {
    const rel = queue.shift()!;
    if (seen.has(rel)) continue;
    seen.add(rel);
    let text: string;
    try {
      text = fs.readFileSync(path.join(root, rel), 'utf8');
    } catch {
      missing.push(rel);
      continue;
    }
    if (!/\.c?js$/.test(rel)) continue;
    for (const m of text.matchAll(/\brequire\("(\.\.?\/[^"]+)"\)/g)) {
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(rel), m[1]!));
      if (target.startsWith('dist/') && !seen.has(target)) queue.push(target);
    }
  }
  return missing;
}

/**
 * The one command that gives back a whole install at `root`: a git checkout restores its committed dist/; the
 * plugin is installed again; an npm install is installed again from where it came (which npm does not record).
 */
function reinstallFix(root: string, settings: Settings): string {
  if (fs.existsSync(path.join(root, '.git'))) return `run "git -C ${root} checkout -- bin dist hooks" (the committed build)`;
  const cache = path.join(settings.claudeConfigDir, 'plugins', 'cache') + path.sep;
  if (root.startsWith(cache)) {
    const [marketplace, name] = root.slice(cache.length).split(path.sep);
    const key = `${name ?? 'git-kb'}@${marketplace ?? 'git-kb'}`;
    return `run "claude plugin uninstall ${key} && claude plugin install ${key}"`;
  }
  return `install git-kb again the way it came: "npm install -g <its git URL, tarball or folder>"`;
}

/** How long a probed hook may take before it counts as hung. */
const PROBE_TIMEOUT_MS = 15_000;

/** A payload for each event that makes its hook do nothing but start, read it and answer (no write anywhere). */
function probePayload(event: string, dir: string): Record<string, unknown> {
  const base = { session_id: `git-kb-doctor-${process.pid}`, transcript_path: path.join(dir, 'no-transcript.jsonl'), cwd: dir, hook_event_name: event };
  const extra: Record<string, Record<string, unknown>> = {
    UserPromptSubmit: { prompt: 'git-kb doctor checks that this hook runs' },
    PreToolUse: { tool_name: 'Read', tool_input: { file_path: path.join(dir, 'nothing') } },
    SessionStart: { source: 'startup' },
    Stop: { stop_hook_active: false },
    PreCompact: { trigger: 'manual', custom_instructions: '' },
    SessionEnd: { reason: 'other' },
  };
  return { ...base, ...(extra[event] ?? {}) };
}

/**
 * `hook-run`: every git-kb hook command Claude Code would run (settings.json's, the plugin's) is run once, as
 * Claude Code runs it, with a harmless payload: a throwaway HOME, session and working directory, and GIT_KB_DATA
 * naming a folder that does not exist, so no hook reads or writes the user's data (hooks never create a data
 * repo) and no summary, turn log or commit comes of it. A command fails when it cannot start, exits non-zero,
 * dies, times out, prints something that is not one JSON object, or logs an error in its debug record (a hook
 * is fail-open: a broken handler exits 0, but says so there).
 */
async function hookRunCheck(wiring: ReturnType<typeof hookWiring>, load: PluginLoad | undefined, settings: Settings, root: string, add: Add): Promise<void> {
  const hooks = wiredHooks({ home: settings.home, claudeConfigDir: settings.claudeConfigDir });
  if (hooks.length === 0) return;
  const { runHookCommand } = await import('../adapters/claude/hook-run.js');
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'git-kb-doctor-'));
  const failures: string[] = [];
  // Failures alike (a removed install fails every event the same way) are said once, with the events they hit.
  const grouped = new Map<string, { where: string; why: string; command: string; events: string[] }>();
  const failing = new Set<WiredHook['source']>();
  try {
    const home = path.join(tmp, 'home');
    fs.mkdirSync(home);
    let n = 0;
    for (const h of hooks) {
      const where = h.source === 'plugin' ? 'the plugin' : path.basename(h.file);
      if (h.problem) {
        failing.add(h.source);
        failures.push(`${where}: ${h.problem}`);
        continue;
      }
      const debugFile = path.join(tmp, `debug-${n++}.jsonl`);
      const env: NodeJS.ProcessEnv = { ...settings.env };
      for (const k of ['CLAUDE_ENV_FILE', 'CLAUDE_PLUGIN_ROOT', 'CLAUDE_PLUGIN_DATA']) delete env[k];
      Object.assign(env, {
        HOME: home,
        XDG_CONFIG_HOME: path.join(home, '.config'),
        CLAUDE_CONFIG_DIR: path.join(home, '.claude'),
        CLAUDE_PROJECT_DIR: tmp,
        GIT_KB_DATA: path.join(tmp, 'no-data-repo'),
        KB_HOOK_DEBUG: '1',
        KB_HOOK_DEBUG_FILE: debugFile,
        KB_REFLECT: '0',
        GIT_KB_CODE_CACHE: '0',
        ...(h.pluginRoot ? { CLAUDE_PLUGIN_ROOT: h.pluginRoot, CLAUDE_PLUGIN_DATA: path.join(tmp, 'plugin-data') } : {}),
      });
      // NOTE: the command names the user's home as the shell would see it (a hand-written `node ~/...`), while the
      // hook itself runs with the throwaway HOME; and a fixed bound rather than the hook's own timeout (SessionEnd
      // has 2 s), so a slow start on a loaded machine is not taken for a broken hook.
      const command = h.command.replace(/(^|[\s"'=:])~(?=\/)/g, `$1${settings.home}`).replace(/\$\{HOME\}|\$HOME\b/g, settings.home);
      const r = await runHookCommand(command, probePayload(h.event, tmp), { cwd: tmp, env, timeoutMs: PROBE_TIMEOUT_MS });
      const why = probeFailure(r, debugFile);
      if (why) {
        failing.add(h.source);
        const key = `${where}\0${why}`;
        const seen = grouped.get(key);
        if (seen) seen.events.push(h.event);
        else grouped.set(key, { where, why, command: h.command, events: [h.event] });
      }
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  for (const g of grouped.values()) failures.push(`${g.events.join(', ')} of ${g.where} (${g.command}${g.events.length > 1 ? ', ...' : ''}): ${g.why}`);
  const failed = hooks.filter((h) => h.problem).length + [...grouped.values()].reduce((n, g) => n + g.events.length, 0);
  const count = hooks.filter((h) => !h.problem).length;
  if (failures.length === 0) {
    add('hook-run', 'ok', `${count} hook command${count === 1 ? '' : 's'} ran and exited 0`);
    return;
  }
  // NOTE: settings.json's hooks are rewired to the install that runs this doctor; with the plugin installed too,
  // they are a duplicate, and removing them is the fix.
  // A plugin read from a local marketplace folder is that folder, which a reinstall does not touch.
  const fix = failing.has('plugin')
    ? load?.folder
      ? fs.existsSync(path.join(load.folder, '.git'))
        ? `run "git -C ${load.folder} checkout -- bin dist hooks" (Claude Code runs the plugin from that folder)`
        : `restore ${load.folder} (Claude Code runs the plugin from that folder), or run "claude plugin marketplace add <another git-kb clone>"`
      : `run "claude plugin uninstall ${wiring.plugin} && claude plugin install ${wiring.plugin}"`
    : wiring.plugin
      ? `run "git-kb uninstall" (the plugin ${wiring.plugin} runs the hooks)`
      : `run "git-kb install" (it wires the hooks of ${root})`;
  add('hook-run', 'fail', `${failed} of ${hooks.length} hook command${hooks.length === 1 ? '' : 's'} fail: ${failures.join('; ')}`, fix);
}

/** Why a probe run failed, or undefined when it ran as a hook must. */
function probeFailure(r: HookRun, debugFile: string): string | undefined {
  const firstLine = (s: string): string => {
    const lines = s.split('\n').map((l) => l.trim()).filter(Boolean);
    return (lines.find((l) => /error|not found|no such|cannot/i.test(l)) ?? lines[0] ?? '').slice(0, 200);
  };
  if (r.error) return `cannot start (${r.error})`;
  if (r.timedOut) return 'did not finish in time';
  if (r.signal) return `killed by ${r.signal}`;
  if (r.code !== 0) return `exit ${r.code}${r.stderr.trim() ? `: ${firstLine(r.stderr)}` : ''}`;
  const out = r.stdout.trim();
  if (out) {
    let ok = false;
    try {
      const v = JSON.parse(out) as unknown;
      ok = typeof v === 'object' && v !== null && !Array.isArray(v);
    } catch {
      /* not JSON */
    }
    if (!ok) return `printed what is not one JSON object: ${firstLine(out)}`;
  }
  let log = '';
  try {
    log = fs.readFileSync(debugFile, 'utf8');
  } catch {
    /* no record: a hook that returned before logging */
  }
  for (const line of log.split('\n')) {
    if (!line.trim()) continue;
    try {
      const rec = JSON.parse(line) as { error?: unknown };
      if (typeof rec.error === 'string') return `ran, but failed inside: ${firstLine(rec.error)}`;
    } catch {
      /* a cut record */
    }
  }
  return undefined;
}
