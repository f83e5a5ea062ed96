/**
 * The prompt index brought up to date from what changed (update.ts, delta.ts) serves what a rebuild of the same
 * files serves. Seeded rounds of changes by hand (new, edited, deleted, renamed and broken entries, session
 * summaries new and rewritten, trivial ones) are applied one after another, so a delta builds on the one before;
 * after each round the updated index is compared with a rebuild of a copy of the repo: every keyword's entries
 * and field bits, its weights within the drift of the field averages, the activity lists, the recent-sessions
 * rows, the files and what they are. Changes an update must not take (a kernel entry, a host fact, an id claimed
 * twice) make it decline, and the rebuild that follows is served. An update killed at any point leaves an index
 * that reads, and the next update serves what a rebuild does.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkFreshness, indexFile, promptStateDir } from '../../src/adapters/index/fresh.js';
import { rebuildPromptIndex } from '../../src/adapters/index/prompt/build.js';
import { deltaFile, openPromptIndex } from '../../src/adapters/index/prompt/delta.js';
import { readAllSideRows } from '../../src/adapters/index/prompt/extras-sessions.js';
import { lookupTerms, readAllFiles, readDoc, type IndexReader } from '../../src/adapters/index/prompt/format.js';
import { refreshIndex, updatePromptIndex } from '../../src/adapters/index/prompt/update.js';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { KillWindow, seeded } from '../hostile/support.js';
import { entryRel, entryText, makeRepo, tid, writeEntries, type TestEntry } from './prompt-support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox();
});
afterEach(() => sb.cleanup());

/** Every keyword of an index file (its postings section, read whole). */
function ownVocabulary(r: IndexReader): string[] {
  const [off, len] = r.header.sections.postings;
  const body = r.read(off, len);
  const out: string[] = [];
  for (let p = 0; p < body.length; ) {
    const tlen = body.readUInt8(p);
    out.push(body.toString('utf8', p + 1, p + 1 + tlen));
    p += 1 + tlen + 4 + 8 * body.readUInt32LE(p + 1 + tlen);
  }
  return out;
}

function vocabulary(r: IndexReader): string[] {
  return [...ownVocabulary(r), ...(r.overlay?.docs.flatMap((d) => [...d.terms.keys()]) ?? [])];
}

/** The files an index serves from: its own, with its overlay's changes. */
function filesOf(r: IndexReader): string[] {
  const o = r.overlay?.files;
  const kinds = new Map(readAllFiles(r).map((f) => [f[0], `${f[2]}:${f[3]}`]));
  const delta = r.overlay ? (JSON.parse(fs.readFileSync(deltaFile(dirOf.get(r)!), 'utf8')) as { files: [string, string | null, string, string][] }).files : [];
  for (const [p, sig, kind, id] of delta) {
    if (sig === null) kinds.delete(p);
    else kinds.set(p, `${kind}:${id}`);
  }
  expect(o === undefined || delta.every(([p]) => o.has(p))).toBe(true);
  return [...kinds].map(([p, k]) => `${p} ${k}`).sort();
}
const dirOf = new Map<IndexReader, string>();

/** What an index serves, for comparing: keywords with their entries, activity, sessions, files, counts. */
function served(r: IndexReader, dir: string, terms: string[]): { postings: Record<string, string[]>; weights: Map<string, number>; rest: unknown } {
  dirOf.set(r, dir);
  const postings: Record<string, string[]> = {};
  const weights = new Map<string, number>();
  for (const [t, p] of lookupTerms(r, terms)) {
    const list: string[] = [];
    for (let i = 0; i < p.count; i++) {
      const cell = p.cells[2 * i]!;
      const { id, size } = readDoc(r, cell >>> 3);
      // The entry's distinct keyword count (the focus bar's) travels with it: an update serves what a rebuild does.
      list.push(`${id}/${cell & 7}/${size}`);
      weights.set(`${t} ${id}`, p.weights[2 * i + 1]!);
    }
    postings[t] = list.sort();
  }
  const h = r.header;
  const s = h.extras.sessions;
  const rows = s?.file ? readAllSideRows(path.join(promptStateDir(dir), s.file)) : {};
  return {
    postings,
    weights,
    rest: { live: h.live ?? h.n, activity: h.activity, sessions: { count: s?.sessions ?? 0, dirs: s?.dirs ?? 0, rows }, kernel: h.kernel.map((k) => k.id), files: filesOf(r) },
  };
}

/** The index of `dir` with its delta, fresh, serves what a rebuild of a copy of `dir` serves. */
async function expectServedAsRebuilt(dir: string, what: string): Promise<void> {
  const merged = openPromptIndex(dir, indexFile(dir))!;
  expect(checkFreshness(dir, merged).fresh, `${what}: fresh after the update`).toBe(true);
  const copy = path.join(sb.root, 'copy');
  fs.cpSync(dir, copy, { recursive: true });
  fs.rmSync(deltaFile(copy), { force: true });
  const rebuilt = (await rebuildPromptIndex(copy)).reader;
  const terms = [...new Set([...vocabulary(merged), ...vocabulary(rebuilt)])];
  const a = served(merged, dir, terms);
  const b = served(rebuilt, copy, terms);
  expect(a.rest, what).toEqual(b.rest);
  expect(a.postings, what).toEqual(b.postings);
  // NOTE: a delta weighs its documents under the field averages of its index file, a rebuild under the
  // averages now: in a repo of 40 entries a few changes move an average (aliases, a long body) by a third.
  for (const [k, w] of b.weights) expect(Math.abs(a.weights.get(k)! - w) / w, `${what}: weight of ${k}`).toBeLessThan(0.5);
  merged.close();
  rebuilt.close();
  fs.rmSync(copy, { recursive: true, force: true });
}

const words = ['rebase', 'stash', 'merge', 'docker', 'volume', 'postgres', 'vacuum', 'index', 'nginx', 'proxy', 'cache', 'thumbnail', 'deploy', 'release', 'checklist', 'widget', 'gallery', 'lazy', 'kernel', 'budget'];
const activities = ['coding', 'writing', 'reviewing', 'planning'];

function session(n: number, cwd: string, minute: number, turns = 3): { rel: string; text: string } {
  const id = `kb-s${n.toString(36).padStart(5, '0')}`;
  const start = new Date(Date.UTC(2026, 4, 1, 9, minute)).toISOString();
  const end = new Date(Date.UTC(2026, 4, 1, 9, minute + (turns > 1 ? 20 : 1))).toISOString();
  return { rel: `sessions/2026/05/${id}-session-${n}.md`, text: `---\nid: ${id}\ntitle: "Session ${n} on ${words[n % words.length]}"\ntype: session_summary\ntags: []\ncreated: ${start}\nupdated: ${end}\nsession_id: sess-${n}\ncwd: ${cwd}\nstarted: ${start}\nended: ${end}\nturns: ${turns}\n---\n\nWorked on ${words[(n * 7) % words.length]}.\n` };
}

describe('prompt index updates', () => {
  it('serve what a rebuild of the same files serves, round after round, and decline what they must not take', async () => {
    const rnd = seeded(0x9e1d);
    const pick = <T>(a: T[]): T => a[Math.floor(rnd() * a.length)]!;
    const title = (): string => Array.from({ length: 2 + Math.floor(rnd() * 3) }, () => pick(words)).join(' ');
    const entry = (n: number): TestEntry => ({
      id: tid(n),
      title: `${title()} ${n}`,
      tags: rnd() < 0.5 ? [pick(words)] : [],
      body: Array.from({ length: 3 + Math.floor(rnd() * 30) }, () => pick(words)).join(' '),
      ...(rnd() < 0.3 ? { appliesTo: [pick(activities)] } : {}),
      ...(rnd() < 0.2 ? { aliases: [pick(words)] } : {}),
      created: new Date(Date.UTC(2026, 0, 1 + (n % 28), n % 24)).toISOString(),
    });
    let next = 1;
    const live: TestEntry[] = Array.from({ length: 40 }, () => entry(next++));
    const hostFact: TestEntry = { id: tid(901), title: 'Disk layout of the build box', type: 'host_fact', host: 'buildbox' };
    await makeRepo(sb, [...live, { id: tid(900), title: 'Write plain sentences', kernel: true, body: 'Write plain sentences.' }, hostFact]);
    const dir = sb.data;
    // the host registered, so its fact is an entry the index points to (without hosts.yaml none is)
    fs.writeFileSync(path.join(dir, 'hosts.yaml'), 'hosts:\n  buildbox:\n    markers: [buildbox.example]\n');
    let nextSession = 1;
    const sessions: { rel: string; n: number; cwd: string; minute: number }[] = [];
    const putSession = (n: number, cwd: string, minute: number, turns = 3): void => {
      const s = session(n, cwd, minute, turns);
      fs.mkdirSync(path.dirname(path.join(dir, s.rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, s.rel), s.text);
      const at = sessions.findIndex((x) => x.n === n);
      if (at >= 0) sessions[at] = { rel: s.rel, n, cwd, minute };
      else sessions.push({ rel: s.rel, n, cwd, minute });
    };
    // more summaries per directory than the side file keeps (RECENT_KEPT)
    for (let i = 0; i < 14; i++) putSession(nextSession++, pick(['/p/a', '/p/b']), i * 3);
    const first = (await rebuildPromptIndex(dir)).reader;
    const layout = lookupTerms(first, ['layout']).get('layout');
    expect(layout && readDoc(first, layout.cells[0]! >>> 3).id, 'the host fact is pointed to').toBe(hostFact.id);
    first.close();

    // [what, apply, whether the update must decline (undefined: it may)]
    const ops: [string, () => void, boolean | undefined][] = [
      ['a new entry', () => {
        const e = entry(next++);
        live.push(e);
        writeEntries(dir, [e]);
      }, false],
      ['an entry edited (often one edited just before)', () => {
        const i = rnd() < 0.5 ? live.length - 1 - Math.floor(rnd() * Math.min(3, live.length)) : Math.floor(rnd() * live.length);
        live[i] = { ...entry(Number.parseInt(live[i]!.id.slice(4), 36)), title: live[i]!.title };
        writeEntries(dir, [live[i]!]);
      }, false],
      ['an entry deleted', () => {
        const [e] = live.splice(Math.floor(rnd() * live.length), 1);
        fs.rmSync(path.join(dir, entryRel(e!)));
      }, false],
      ['an entry renamed', () => {
        const i = Math.floor(rnd() * live.length);
        const from = entryRel(live[i]!);
        live[i] = { ...live[i]!, title: `${live[i]!.title} renamed` };
        fs.renameSync(path.join(dir, from), path.join(dir, entryRel(live[i]!)));
      }, false],
      ['an entry broken', () => {
        const i = Math.floor(rnd() * live.length);
        const [e] = live.splice(i, 1);
        fs.writeFileSync(path.join(dir, entryRel(e!)), '---\ntitle: [unclosed\n---\nbroken\n');
      }, false],
      ['a new session summary', () => putSession(nextSession++, pick(['/p/a', '/p/b', '/p/c']), 20 + nextSession * 2), false],
      ['a session summary rewritten later by its Stop hook', () => {
        const s = pick(sessions);
        putSession(s.n, s.cwd, s.minute + 1);
      }, undefined],
      ['a trivial session', () => putSession(nextSession++, '/p/a', 50, 1), false],
      ['a session summary deleted', () => {
        const [x] = sessions.splice(Math.floor(rnd() * sessions.length), 1);
        if (x) fs.rmSync(path.join(dir, x.rel));
      }, undefined],
      ['a session summary made trivial', () => {
        const x = pick(sessions);
        if (x) putSession(x.n, x.cwd, x.minute, 1);
      }, undefined],
      ['a kernel entry edited', () => fs.appendFileSync(path.join(dir, entryRel({ id: tid(900), title: 'Write plain sentences' })), '\nAnd short ones.\n'), true],
      ['a host fact', () => writeEntries(dir, [{ id: tid(800 + next++), title: 'Disk of the box', type: 'host_fact', host: 'box' }]), true],
      ['a host fact edited', () => writeEntries(dir, [{ ...hostFact, body: `Disk ${next++} of the build box.` }]), true],
      ['a host fact deleted', () => fs.rmSync(path.join(dir, entryRel(hostFact)), { force: true }), true],
      ['an id claimed twice', () => {
        const e = pick(live);
        fs.writeFileSync(path.join(dir, 'entries', `${e.id}-another-file.md`), entryText({ ...e, title: 'Another file' }));
      }, true],
    ];
    let updates = 0;
    let declined = 0;
    for (let round = 0; round < 56; round++) {
      // a change an update must decline every eighth round, so that deltas build on deltas in between
      const common = ops.filter((o) => o[2] !== true);
      const chosen = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => pick(common));
      const declining = ops.filter((o) => o[2] === true);
      if (round % 8 === 7) chosen.push(declining[((round + 1) / 8 - 1) % declining.length]!);
      for (const [, apply] of chosen) apply();
      const what = chosen.map((c) => c[0]).join(', ');
      const up = await updatePromptIndex(dir);
      const mustDecline = chosen.some((c) => c[2] === true);
      if (mustDecline) expect(up, `round ${round}: ${what}`).toBeUndefined();
      else if (chosen.every((c) => c[2] === false)) expect(up, `round ${round}: ${what}`).toBeDefined();
      if (!up) {
        declined++;
        // clean up what a rebuild would serve forever (an id claimed twice), so later rounds stay comparable
        for (const f of fs.readdirSync(path.join(dir, 'entries'))) if (f.includes('-another-file')) fs.rmSync(path.join(dir, 'entries', f));
        await rebuildPromptIndex(dir);
        continue;
      }
      updates++;
      up.reader.close();
      await expectServedAsRebuilt(dir, `round ${round}: ${what}`);
    }
    expect(updates).toBeGreaterThanOrEqual(35);
    expect(declined).toBeGreaterThanOrEqual(7);
  }, 120_000);

  it('an update killed at any point leaves an index that reads, and the next update right', async () => {
    const entries: TestEntry[] = Array.from({ length: 30 }, (_, i) => ({ id: tid(i + 1), title: `${words[i % words.length]} ${words[(i * 3) % words.length]} note ${i}`, body: words.slice(i % 7, (i % 7) + 6).join(' ') }));
    await makeRepo(sb, entries);
    const dir = sb.data;
    await rebuildPromptIndex(dir);
    const builder = path.join(process.cwd(), 'dist', 'hooks', 'prompt-build.js');
    const code = 'require(process.argv[1]).refreshIndex(process.argv[2])';
    const runBuilder = (killAfterMs: number): Promise<{ ms: number; signal: NodeJS.Signals | null }> =>
      new Promise((resolve) => {
        const started = Date.now();
        const child = spawn(process.execPath, ['-e', code, builder, dir], { stdio: 'ignore', env: sb.env });
        const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
        child.on('exit', (_c, signal) => {
          clearTimeout(timer);
          resolve({ ms: Date.now() - started, signal });
        });
      });
    writeEntries(dir, [{ id: tid(100), title: 'probe entry', body: 'probe' }]);
    const probe = await runBuilder(60_000);
    const window = new KillWindow(probe.ms, 16, 0x4b11);
    let killed = 0;
    for (let n = 0; n < 16; n++) {
      writeEntries(dir, [{ id: tid(200 + n), title: `${words[n % words.length]} killed update ${n}`, body: `${words[(n * 5) % words.length]} body ${n}` }]);
      if (n % 3 === 2) fs.rmSync(path.join(dir, entryRel(entries[n]!)));
      const r = await runBuilder(window.delay(n));
      if (r.signal === 'SIGKILL') killed++;
      window.observe(r.signal === 'SIGKILL', r.ms);
      const after = openPromptIndex(dir, indexFile(dir));
      expect(after, `round ${n}: an index reads after the kill`).toBeDefined();
      after!.close();
      const next = await updatePromptIndex(dir);
      expect(next, `round ${n}: the next update`).toBeDefined();
      next!.reader.close();
      await expectServedAsRebuilt(dir, `round ${n}, killed after ${r.ms} ms`);
    }
    expect(killed).toBeGreaterThanOrEqual(4);
  });

  it('cases a review found: a ctime-only edit, hosts.yaml deleted, a duplicate left serving, a file made a folder, the generation', async () => {
    const entries: TestEntry[] = [
      { id: tid(1), title: 'alpha note', body: 'zebra' },
      { id: tid(2), title: 'beta note', body: 'other words' },
      { id: tid(3), title: 'gamma note', body: 'more words' },
    ];
    await makeRepo(sb, entries);
    const dir = sb.data;
    expect(fs.existsSync(path.join(dir, '.git', 'packed-refs')), 'a repo without packed-refs: its key part is "-" too').toBe(false);
    fs.writeFileSync(path.join(dir, 'hosts.yaml'), 'hosts:\n  buildbox:\n    markers: [buildbox.example]\n');
    await rebuildPromptIndex(dir);
    const updated = async (what: string): Promise<void> => {
      const up = await updatePromptIndex(dir);
      expect(up, what).toBeDefined();
      up!.reader.close();
      await expectServedAsRebuilt(dir, what);
    };
    // An edit of the same size with its mtime put back: only the ctime moved.
    const f = path.join(dir, entryRel(entries[0]!));
    const ref = path.join(sb.root, 'mtime-ref');
    fs.writeFileSync(ref, '');
    execFileSync('touch', ['-r', f, ref]); // to the nanosecond (utimes from JavaScript rounds to the millisecond)
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('zebra', 'koala'));
    execFileSync('touch', ['-r', ref, f]);
    expect(fs.statSync(f).mtimeMs).toBe(fs.statSync(ref).mtimeMs);
    await updated('a ctime-only edit');
    const merged = openPromptIndex(dir, indexFile(dir))!;
    expect(lookupTerms(merged, ['koala']).get('koala')?.count).toBe(1);
    merged.close();
    // A file replaced by a folder of the same name: gone, as a build lists files only.
    const g = path.join(dir, entryRel(entries[2]!));
    fs.rmSync(g);
    fs.mkdirSync(g);
    await updated('a file made a folder');
    fs.rmdirSync(g);
    // The generation is a rebuild's own, so a rebuild after an update resets no session's ledger.
    writeEntries(dir, [{ id: tid(4), title: 'delta note', body: 'new words' }]);
    await updated('a new entry');
    const gen = openPromptIndex(dir, indexFile(dir))!;
    const generation = gen.header.generation;
    gen.close();
    const rebuilt = (await rebuildPromptIndex(dir)).reader;
    expect(rebuilt.header.generation).toBe(generation);
    rebuilt.close();
    // A delta corrupt within its shape (a keyword that is not a triple, a hot entry that is not a pair): the
    // index file is served alone, stale, and the next refresh puts it right.
    for (const damage of [(d: { docs: unknown[][] }) => ((d.docs[0]![2] as unknown[]).push(null), d), (d: { hot: unknown[] }) => (d.hot.push(null), d)]) {
      writeEntries(dir, [{ id: tid(5), title: 'epsilon note', body: `words ${Math.random()}` }]);
      await updated('before the damage');
      const file = deltaFile(dir);
      fs.writeFileSync(file, JSON.stringify(damage(JSON.parse(fs.readFileSync(file, 'utf8')))));
      const opened = openPromptIndex(dir, indexFile(dir))!;
      expect(opened.overlay).toBeUndefined();
      expect(checkFreshness(dir, opened).fresh).toBe(false);
      opened.close();
      (await refreshIndex(dir)).reader.close(); // updated, or rebuilt when the damage is in what the update builds on
      await expectServedAsRebuilt(dir, 'after the damage');
    }
    // hosts.yaml deleted: declined (the host matcher and what is hidden come from it).
    fs.rmSync(path.join(dir, 'hosts.yaml'));
    expect(await updatePromptIndex(dir), 'hosts.yaml deleted').toBeUndefined();
    await rebuildPromptIndex(dir);
    // Two summaries with one id; the one serving it deleted: the other serves now, a rebuild's call.
    const [a, b] = [session(1, '/p/a', 1), session(1, '/p/a', 1)];
    const rels = [a.rel, b.rel.replace('2026/05', '2026/06')];
    for (const rel of rels) {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), a.text);
    }
    await rebuildPromptIndex(dir);
    fs.rmSync(path.join(dir, rels[0]!));
    expect(await updatePromptIndex(dir), 'the serving file of a duplicate id deleted').toBeUndefined();
  });
});
