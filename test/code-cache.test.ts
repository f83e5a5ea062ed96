// The code cache (src/adapters/system/code-cache.ts), as bin/git-kb and bin/git-kb-hook install it: the first
// process leaves V8's compiled code of each built file it loaded under ~/.cache/git-kb/code/, the next ones
// compile from it and write nothing; a damaged or foreign cache file is rejected by V8 and written again; an
// unwritable cache folder or GIT_KB_CODE_CACHE=0 changes nothing but the speed. Outputs are the same throughout.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hook, kb, makeSandbox, type Sandbox } from './helpers/cli.js';
import { addEntry, initRepo } from './cli/support.js';

let sb: Sandbox;
beforeAll(async () => {
  sb = makeSandbox();
  await initRepo(sb);
  await addEntry(sb, { type: 'decision', title: 'Cached compile of rebase notes', body: 'Rebase interactive with autosquash.' });
});
afterAll(() => sb.cleanup());

const cacheRoot = (): string => path.join(sb.home, '.cache', 'git-kb', 'code');
/** The cache files, with their mtimes. */
function cacheFiles(): Map<string, number> {
  const out = new Map<string, number>();
  if (!fs.existsSync(cacheRoot())) return out;
  for (const v of fs.readdirSync(cacheRoot())) for (const f of fs.readdirSync(path.join(cacheRoot(), v))) out.set(path.join(v, f), fs.statSync(path.join(cacheRoot(), v, f)).mtimeMs);
  return out;
}
const commands: string[][] = [['--version'], ['status'], ['search', 'rebase', 'interactive'], ['get', 'kb-doesnotexist']];
let session = 0;
/** Each command's output; the prompt hook in a new session each time (a session shows a pointer once). */
async function outputs(env: NodeJS.ProcessEnv = {}): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const args of commands) {
    const r = await kb(sb, ['--data', sb.data, ...args], { env });
    out.push({ code: r.code, stdout: r.stdout, stderr: r.stderr });
  }
  const h = await hook(sb, 'prompt', { prompt: 'how do I rebase interactive with autosquash', cwd: sb.root, session_id: `cc-${++session}` }, { env: { GIT_KB_DATA: sb.data, ...env } });
  out.push({ code: h.code, stdout: h.stdout, stderr: h.stderr });
  return out;
}

describe('code cache', () => {
  it('is left by the first processes, used by the next ones, and changes no output', async () => {
    fs.rmSync(cacheRoot(), { recursive: true, force: true }); // what the set-up's commands left
    const plain = await outputs({ GIT_KB_CODE_CACHE: '0' });
    expect(cacheFiles().size, 'GIT_KB_CODE_CACHE=0 writes nothing').toBe(0);
    expect(await outputs()).toEqual(plain);
    const first = cacheFiles();
    const names = [...first.keys()].map((f) => path.basename(f));
    expect(names.some((n) => n.startsWith('cli.js@'))).toBe(true);
    expect(names.some((n) => n.startsWith('hook.cjs@'))).toBe(true);
    expect(names.some((n) => n.startsWith('chunks%2F'))).toBe(true);
    expect(names.every((n) => !n.endsWith('.tmp'))).toBe(true);
    expect(await outputs()).toEqual(plain);
    expect(cacheFiles(), 'a process that found every cache writes none').toEqual(first);
  });

  it('rejects a damaged or foreign cache file and writes it again', async () => {
    const plain = await outputs({ GIT_KB_CODE_CACHE: '0' });
    const files = [...cacheFiles().keys()];
    const cli = files.find((f) => path.basename(f).startsWith('cli.js@'))!;
    const hookFile = files.find((f) => path.basename(f).startsWith('hook.cjs@'))!;
    const chunk = files.find((f) => path.basename(f).startsWith('chunks%2F'))!;
    fs.writeFileSync(path.join(cacheRoot(), cli), 'garbage, not code');
    fs.writeFileSync(path.join(cacheRoot(), hookFile), fs.readFileSync(path.join(cacheRoot(), hookFile)).subarray(0, 100));
    fs.copyFileSync(path.join(cacheRoot(), cli === chunk ? hookFile : files.find((f) => f !== chunk && f !== cli && f !== hookFile)!), path.join(cacheRoot(), chunk)); // another file's code
    expect(await outputs()).toEqual(plain);
    for (const f of [cli, hookFile]) expect(fs.statSync(path.join(cacheRoot(), f)).size, `${f} written again`).toBeGreaterThan(1000);
    expect(await outputs()).toEqual(plain);
  });

  it('a process that writes caches removes those of files that changed or went', async () => {
    const files = [...cacheFiles().keys()];
    const folder = path.dirname(files[0]!);
    const stale = [`${folder}/cli.js@1-2-3`, `${folder}/chunks%2Fchunk-GONE0000.js@1-2-3`, `${folder}/not-ours`];
    for (const f of stale) fs.writeFileSync(path.join(cacheRoot(), f), 'old');
    fs.rmSync(path.join(cacheRoot(), files.find((f) => path.basename(f).startsWith('cli.js@'))!)); // so the next process writes one
    await kb(sb, ['--version']);
    const now = [...cacheFiles().keys()];
    for (const f of stale) expect(now, f).not.toContain(f);
    expect(now.filter((f) => path.basename(f).startsWith('cli.js@'))).toHaveLength(1);
    expect(now.length).toBe(files.length);
  });

  it('changes nothing but the speed when the cache folder cannot be written', async () => {
    const plain = await outputs({ GIT_KB_CODE_CACHE: '0' });
    fs.rmSync(path.join(sb.home, '.cache'), { recursive: true, force: true });
    fs.writeFileSync(path.join(sb.home, '.cache'), 'a file where the folder would be');
    expect(await outputs()).toEqual(plain);
    fs.rmSync(path.join(sb.home, '.cache'));
  });
});
