/**
 * Shared steps for the hostile battery (issue 16): processes killed at chosen moments (counted from the start, or
 * from the moment the write lock appears), a seeded random generator for kill points, a search of every object,
 * path and file of a repo for a needle (case-insensitive), and checks on terminal-safe output. Everything is
 * black-box: the built binaries and the real git CLI, nothing imported from src/.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI, git, HOOK, type Sandbox } from '../helpers/cli.js';

/** The write lock of a data repo (src/adapters/store/layout.ts: `<repo>/.git/git-kb/write.lock`). */
export function lockPath(dir: string): string {
  return path.join(dir, '.git', 'git-kb', 'write.lock');
}

/** A deterministic generator (mulberry32) so kill points are the same on every run for a seed. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Kill delays that follow the machine's load: one seeded point per slice of [5%, 95%] of a window measured by an
 * unkilled probe run. A run that ends before its kill shows the window is wider than the runs now take (the probe
 * ran on a busier machine): the window narrows to 0.9 x the smaller of itself and the time that run took (floor
 * `floorMs`), so the later slices stay reachable.
 */
export class KillWindow {
  private readonly rnd: () => number;
  constructor(
    public windowMs: number,
    private readonly slices: number,
    seed: number,
    private readonly floorMs = 5,
  ) {
    this.rnd = seeded(seed);
    this.windowMs = Math.max(floorMs, windowMs);
  }

  /** The kill delay for round `n` (slices repeat when rounds go on past them). */
  delay(n: number): number {
    const slice = (this.windowMs * 0.9) / this.slices;
    return Math.round(this.windowMs * 0.05 + (n % this.slices) * slice + this.rnd() * slice);
  }

  /** Notes how a round ended; `tookMs` is the run's time over the same span the window measures. */
  observe(killed: boolean, tookMs: number): void {
    if (!killed) this.windowMs = Math.max(this.floorMs, Math.round(Math.min(this.windowMs, tookMs) * 0.9));
  }
}

/** How a killed (or not) process ended. */
export interface KillResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** True when the kill timer started from the lock (it appeared before the process ended). */
  lockSeen: boolean;
  /** ms from spawn to exit. */
  ms: number;
  /** ms from spawn until the lock appeared (undefined when never seen). */
  lockAtMs?: number;
  stdout: string;
  stderr: string;
}

export interface KillOptions {
  env?: NodeJS.ProcessEnv;
  input?: string | Buffer;
  cwd?: string;
  /** Start the kill timer when this file appears (a lock), not at spawn. */
  afterFile?: string;
  /** Start the kill timer at the first new name in this (existing) directory, e.g. `.git/objects`. */
  afterChangeIn?: string;
  /** Hard cap: the process is killed after this many ms whatever happens (default 60 s). */
  capMs?: number;
  /** The signal sent at the kill point (default SIGKILL; the hard cap always sends SIGKILL). */
  signal?: NodeJS.Signals;
}

/** Spawns `node bin/git-kb ARGS` in the sandbox. */
export function spawnKb(sb: Sandbox, args: string[], options: { env?: NodeJS.ProcessEnv; cwd?: string } = {}): ChildProcess {
  return spawn(process.execPath, [CLI, ...args], { env: { ...sb.env, ...options.env }, cwd: options.cwd ?? sb.root, stdio: ['pipe', 'pipe', 'pipe'] });
}

/**
 * Runs `git-kb ARGS` and SIGKILLs it (or sends `signal`) `delayMs` after spawn, or `delayMs` after `afterFile` appears (watched with
 * inotify and a 1 ms poll). A process that ends first is reported as it ended.
 */
export function kbKilledAfter(sb: Sandbox, args: string[], delayMs: number, options: KillOptions = {}): Promise<KillResult> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawnKb(sb, args, { env: options.env, cwd: options.cwd });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout!.on('data', (c: Buffer) => out.push(c));
    child.stderr!.on('data', (c: Buffer) => err.push(c));
    child.stdin!.on('error', () => undefined);
    child.stdin!.end(options.input ?? '');
    let lockAtMs: number | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let poll: NodeJS.Timeout | undefined;
    let watcher: fs.FSWatcher | undefined;
    const cap = setTimeout(() => child.kill('SIGKILL'), options.capMs ?? 60_000);
    const arm = (): void => {
      if (killTimer) return;
      lockAtMs = Date.now() - started;
      if (poll) clearInterval(poll);
      watcher?.close();
      killTimer = setTimeout(() => child.kill(options.signal ?? 'SIGKILL'), delayMs);
    };
    if (options.afterFile) {
      const file = options.afterFile;
      try {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        watcher = fs.watch(path.dirname(file), (_ev, name) => {
          if (name === path.basename(file)) arm();
        });
        watcher.on('error', () => undefined);
      } catch {
        // no watch: the poll alone
      }
      poll = setInterval(() => {
        if (fs.existsSync(file)) arm();
      }, 1);
    } else if (options.afterChangeIn) {
      const d = options.afterChangeIn;
      const before = new Set(fs.readdirSync(d));
      watcher = fs.watch(d, (_ev, name) => {
        if (name && !before.has(String(name))) arm();
      });
      watcher.on('error', () => undefined);
      poll = setInterval(() => {
        if (fs.readdirSync(d).some((n) => !before.has(n))) arm();
      }, 2);
    } else arm();
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(cap);
      if (killTimer) clearTimeout(killTimer);
      if (poll) clearInterval(poll);
      watcher?.close();
      // stdout/stderr may still be draining: give them a tick.
      setImmediate(() =>
        resolve({
          code,
          signal,
          lockSeen: options.afterFile || options.afterChangeIn ? lockAtMs !== undefined : true,
          ms: Date.now() - started,
          lockAtMs,
          stdout: Buffer.concat(out).toString('utf8'),
          stderr: Buffer.concat(err).toString('utf8'),
        }),
      );
    });
  });
}

/** `git fsck --strict` with stdout and stderr together, whatever its exit ("bad sha1 file" is a warning on stderr). */
export function fsckOutput(dir: string, env?: NodeJS.ProcessEnv): Promise<{ code: number; text: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn('git', ['fsck', '--strict', '--no-progress', '--no-dangling'], { cwd: dir, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    c.stdout.on('data', (d: Buffer) => (text += d.toString()));
    c.stderr.on('data', (d: Buffer) => (text += d.toString()));
    c.on('error', reject);
    c.on('close', (code) => resolve({ code: code ?? 1, text }));
  });
}

/** `cp -a SRC DST` (keeps modes and times, so a copied repo's index stays valid). */
export async function copyTree(src: string, dst: string): Promise<void> {
  fs.rmSync(dst, { recursive: true, force: true });
  await new Promise<void>((resolve, reject) => {
    const c = spawn('cp', ['-a', src, dst], { stdio: 'ignore' });
    c.on('error', reject);
    c.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`cp -a ${src} ${dst} exited ${code}`))));
  });
}

/** Every object (reachable or not), every path of every ref's tree, the index and the work tree files, as text. */
export async function everythingIn(dir: string, env?: NodeJS.ProcessEnv): Promise<string> {
  const parts: string[] = [];
  parts.push(await git(dir, ['cat-file', '--batch-all-objects', '--batch'], env).catch(() => ''));
  const refs = (await git(dir, ['for-each-ref', '--format=%(objectname)'], env).catch(() => '')).trim().split('\n').filter(Boolean);
  for (const r of new Set(refs)) parts.push(await git(dir, ['ls-tree', '-r', '--name-only', r], env).catch(() => ''));
  parts.push(await git(dir, ['ls-files', '--cached', '--others'], env).catch(() => ''));
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      parts.push(path.relative(dir, p));
      if (e.isDirectory()) {
        if (e.name !== 'objects') walk(p); // loose objects are compressed: cat-file above reads them
      } else if (e.isFile() && fs.statSync(p).size < 4 * 1024 * 1024) parts.push(fs.readFileSync(p, 'latin1'));
    }
  };
  if (fs.existsSync(dir)) walk(dir);
  return parts.join('\n');
}

/** The needles of a secret that must never be stored: the whole of it and each long line of a multi-line one. */
export function needlesOf(secret: string): string[] {
  const out = new Set<string>([secret]);
  for (const part of secret.split(/\n|\\n/)) if (part.length >= 16 && !/^-----(BEGIN|END) /.test(part)) out.add(part);
  return [...out];
}

/** The needles of `secret` that occur in `haystack`, ignoring case. */
export function foundIn(haystack: string, secret: string): string[] {
  const hay = haystack.toLowerCase();
  return needlesOf(secret).filter((n) => hay.includes(n.toLowerCase()));
}

/**
 * Pieces of `secret` (16 letters and digits in a row, with both in them) found in `haystack`, comparing only
 * letters and digits, lower-cased: catches a secret copied into a slug (`_` turned into `-`, cut at 40
 * characters) or a title (`_` turned into spaces). Returns the number of such pieces.
 */
export function fragmentsIn(haystack: string, secret: string, len = 16): number {
  const norm = (t: string): string => t.toLowerCase().replace(/[^a-z0-9]+/g, '');
  const hay = norm(haystack);
  const sec = norm(secret);
  let n = 0;
  for (let i = 0; i + len <= sec.length; i += 4) {
    const piece = sec.slice(i, i + len);
    if (/[0-9]/.test(piece) && /[a-z]/.test(piece) && hay.includes(piece)) n++;
  }
  return n;
}

/** True when any part of `secret` is in `haystack` (whole, any case, or a 16-character piece). */
export function holds(haystack: string, secret: string): boolean {
  return foundIn(haystack, secret).length > 0 || fragmentsIn(haystack, secret) > 0;
}

/** `text` with every secret (any case) replaced by <secret>, so a failure message never prints one. */
export function mask(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) {
    for (const n of needlesOf(s)) out = out.replace(new RegExp(n.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'gi'), '<secret>');
    // Slug and title forms: the letters and digits of the secret with any separators between them.
    const core = s.replace(/[^A-Za-z0-9]+/g, '');
    if (core.length >= 16) {
      const sep = core.split('').map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^A-Za-z0-9]*');
      out = out.replace(new RegExp(sep, 'gi'), '<secret>');
    }
  }
  return out;
}

/** C0 control characters other than newline and tab (ESC included), and DEL and C1 controls. */
export const CONTROL = /[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/;

/** Shows control characters of a text visibly, for messages. */
export function visible(text: string): string {
  return text.replace(/[\x00-\x08\x0b-\x1f\x7f\x80-\x9f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/** The path of the hook entry (for spawning it with unusual stdin). */
export const HOOK_ENTRY = HOOK;

/** Total CPU time (user + system) of a live process in ms, from /proc/<pid>/stat; undefined when it is gone. */
export function cpuMsOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15 of stat)
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

/** Waits until `check` holds or `ms` passes; returns whether it held. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms: number, every = 50): Promise<boolean> {
  const end = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, every));
  }
}

/** Files whose names look like temp files of an interrupted write, anywhere under `root` (relative paths). */
export function tempFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    let list: fs.Dirent[];
    try {
      list = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of list) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tmp$|^tmp_|^tmp-|\.lock\.|^\.tmp|tmp_obj_|\.[0-9]+\.[0-9a-f]+$/i.test(e.name)) out.push(path.relative(root, p));
    }
  };
  walk(root);
  return out.sort();
}
