/**
 * A writer killed with SIGKILL at a random point during `add`, 20 times over: each time the repo stays valid
 * (`git fsck --strict`), no entry file is partial (every file under entries/ parses), and the next `add`
 * succeeds with no manual help and leaves `git status` clean.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, expectCleanRepo, git, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitCount, initRepo, kbd, kbj, treePaths } from './support.js';
import { KillWindow } from '../hostile/support.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  // Some entries already there, so a kill can land while trees with content are rewritten.
  for (let i = 0; i < 3; i++) await kbj(sb, ['add', '--type', 'decision', '--title', `Existing ${i}`, '--', 'A body.']);
});
afterAll(() => sb.cleanup());

const ROUNDS = 20;

/** Spawns an add and SIGKILLs it after `delayMs`; resolves with how it ended. */
function addThenKill(title: string, delayMs: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, '--data', sb.data, 'add', '--type', 'lesson_learned', '--title', title, '--', `Body of ${title}, long enough to matter. `.repeat(40)], {
      env: sb.env,
      stdio: 'ignore',
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), delayMs);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal });
    });
  });
}

/** Files under entries/ (including hidden ones a kill could leave). */
function entryFiles(): string[] {
  const dir = path.join(sb.data, 'entries');
  return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
}

describe('SIGKILL during add', () => {
  it(`leaves a valid repo and needs no help, ${ROUNDS} times over`, { timeout: 240_000 }, async () => {
    // Delays spread over the time one add takes here (one random point in each slice, the slices in random order)
    // so every phase of an add (start-up, validation, lock, file write, objects, ref, index) gets hit. The time an
    // add takes moves with the machine's load: an add that ends before its kill shows the window was too wide, and
    // the window is narrowed below the time it took; rounds go on until ROUNDS adds were really killed (at most 3 x ROUNDS).
    const timed = async (fn: () => Promise<unknown>): Promise<number> => {
      const t0 = Date.now();
      await fn();
      return Date.now() - t0;
    };
    const probeMs = await timed(async () => expect((await kbd(sb, ['add', '--type', 'decision', '--title', 'Timing probe', '--', 'A body.'])).code).toBe(0));
    const window = new KillWindow(probeMs * 1.1, ROUNDS, 0x5eed, 10);
    const slices = Array.from({ length: ROUNDS }, (_, i) => i).sort(() => Math.random() - 0.5);
    let killed = 0;
    let recovered = 0;
    for (let round = 0; killed < ROUNDS && round < 3 * ROUNDS; round++) {
      const delay = window.delay(slices[killed]!);
      const before = await commitCount(sb);
      let end: { code: number | null; signal: NodeJS.Signals | null } = { code: null, signal: null };
      const took = await timed(async () => (end = await addThenKill(`Killed round ${round}`, delay)));
      if (end.signal === 'SIGKILL') killed++;
      // NOTE: an add that ended before its kill took less than the window: the window shrinks below that time
      // (took is spawn to exit; a kill at or past it cannot land), so the later slices become reachable.
      window.observe(end.signal === 'SIGKILL', took);
      const label = `round ${round} (killed after ${delay} ms: ${end.signal ?? `exit ${end.code}`})`;

      // Valid right after the kill, before anyone repairs anything.
      await git(sb.data, ['fsck', '--strict', '--no-progress', '--no-dangling'], sb.env).catch((err: Error) => {
        throw new Error(`${label}: ${err.message}`);
      });
      // No partial entry file: every .md under entries/ parses.
      const lint = JSON.parse((await kbd(sb, ['lint', '--json'])).stdout) as { problems: { rule: string; file: string }[] };
      expect(lint.problems.filter((p) => p.rule === 'parse' || p.rule === 'unreadable'), label).toEqual([]);

      // The next add succeeds with no help, and the repo is clean afterwards.
      const next = await kbd(sb, ['add', '--json', '--type', 'decision', '--title', `After round ${round}`, '--', 'A body.']);
      expect(next.code, `${label}: ${next.stderr}`).toBe(0);
      const after = await commitCount(sb);
      // The killed add either never committed, committed, or was completed by the next writer.
      expect(after - before, label).toBeGreaterThanOrEqual(1);
      expect(after - before, label).toBeLessThanOrEqual(2);
      if (after - before === 2) recovered++;
      await expectCleanRepo(sb.data).catch((err: Error) => {
        throw new Error(`${label}: ${err.message}`);
      });
      expect(entryFiles().filter((f) => f.startsWith('.') || f.endsWith('.tmp')), `${label}: temp files left in entries/`).toEqual([]);
    }
    expect(killed, `adds really killed in ${3 * ROUNDS} rounds at most`).toBe(ROUNDS);
    // Every file in entries/ is in HEAD, and every entry there is whole.
    const inHead = await treePaths(sb);
    expect(new Set(inHead.map((p) => path.basename(p)))).toEqual(new Set(entryFiles()));
    expect((await kbj(sb, ['lint'])).ok).toBe(true);
    expect(recovered).toBeGreaterThanOrEqual(0);
    // The write lock is not left behind.
    expect(fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'write.lock'))).toBe(false);
  });
});
