/**
 * Fail-open: every bad input to the prompt hook ends in exit 0 within one second with either no output or one
 * valid UserPromptSubmit JSON object under the cap. Run through the exact command of hooks/hooks.json.
 */
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HOOK_OUTPUT_MAX } from '../../src/core/budget.js';
import { makeSandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { entryRel, makeRepo, payload, runPromptHook, tid, writeEntries, type TestEntry } from './prompt-support.js';

const PROMPT = 'git stash pop gave me merge conflicts and now other files are staged, how do I finish the pop?';
const entries: TestEntry[] = [
  { id: tid(1), title: 'Resolve a merge conflict from stash pop', tags: ['git'] },
  { id: tid(2), title: 'Create an index without locking the table', tags: ['postgres'] },
  { id: tid(3), title: 'Always-on rule', kernel: true, body: 'Write plain sentences.' },
];

function expectFailOpen(r: RunResult, label: string): void {
  expect(r.code, `${label}: exit code (stderr: ${r.stderr.slice(0, 300)})`).toBe(0);
  if (r.stdout === '') return;
  expect(r.stdout.length, label).toBeLessThanOrEqual(HOOK_OUTPUT_MAX);
  const out = JSON.parse(r.stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: unknown } };
  expect(out.hookSpecificOutput?.hookEventName, label).toBe('UserPromptSubmit');
  expect(typeof out.hookSpecificOutput?.additionalContext, label).toBe('string');
}

let template: Sandbox;
beforeAll(async () => {
  // One data repo with a built index, copied for each case that damages something.
  template = makeSandbox('gkb-failopen-');
  await makeRepo(template, entries);
  const r = await runPromptHook(template, payload(PROMPT));
  expect(r.stdout).toContain(tid(1));
});
afterAll(() => template.cleanup());

/** A fresh sandbox whose data repo is a copy of the template's (index included). */
function copySandbox(): Sandbox {
  const sb = makeSandbox('gkb-failopen-');
  fs.cpSync(template.data, sb.data, { recursive: true });
  return sb;
}

const state = (sb: Sandbox, ...p: string[]): string => path.join(sb.data, '.git', 'git-kb', ...p);

/** Makes a FIFO at `file` (its folder too): opened for reading as a file is, it waits for a writer for ever. */
function mkfifo(file: string): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  execFileSync('mkfifo', [file]);
}

interface Case {
  name: string;
  input?: unknown;
  raw?: string | Buffer;
  env?: (sb: Sandbox) => NodeJS.ProcessEnv;
  setup?: (sb: Sandbox) => void;
  /** The damage is to derived state or to other entries: the matching entry must still be pointed to. */
  serves?: boolean;
}

const cases: Case[] = [
  { name: 'empty stdin', raw: '' },
  { name: 'white space only', raw: ' \n\t ' },
  { name: 'not JSON', raw: 'hello world' },
  { name: 'truncated JSON', raw: '{"prompt": "git stash pop gave me merge conf' },
  { name: 'a JSON array', input: [PROMPT] },
  { name: 'a JSON string', input: PROMPT },
  { name: 'a JSON number', input: 42 },
  { name: 'JSON null', raw: 'null' },
  { name: 'two JSON objects', raw: `${JSON.stringify(payload(PROMPT))}\n${JSON.stringify(payload(PROMPT))}` },
  { name: 'binary garbage', raw: crypto.randomBytes(4096) },
  { name: 'invalid UTF-8 inside JSON', raw: Buffer.concat([Buffer.from('{"prompt":"git stash pop merge conflict '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' staged files","session_id":"s"}')]) },
  { name: 'prompt missing', input: { session_id: 's' } },
  { name: 'prompt is a number', input: payload(12345) },
  { name: 'prompt is null', input: payload(null) },
  { name: 'prompt is an object', input: payload({ text: PROMPT }) },
  { name: 'prompt is an array', input: payload([PROMPT]) },
  { name: 'prompt with NUL bytes and lone surrogates', input: payload(`${PROMPT}\u0000\ud800 merge\udfff`) },
  { name: 'a 5 MB prompt', serves: true, input: payload(`${PROMPT} ${'merge conflict stash '.repeat(250_000)}`) },
  { name: 'a 9 MB payload (over the stdin limit)', raw: JSON.stringify(payload('x'.repeat(9 * 1024 * 1024))) },
  { name: 'a prompt of 4,000 distinct words', input: payload(Array.from({ length: 4000 }, (_, i) => `word${i.toString(36)}x`).join(' ')) },
  { name: 'session_id is a number', input: payload(PROMPT, 7) },
  { name: 'session_id is an object', input: payload(PROMPT, { id: 1 }) },
  { name: 'session_id climbs out of the ledger folder', serves: true, input: payload(PROMPT, '../../../../etc/passwd') },
  { name: 'session_id of 10,000 characters', input: payload(PROMPT, 's'.repeat(10_000)) },
  { name: 'cwd and transcript_path wrongly typed', input: { ...payload(PROMPT), cwd: 5, transcript_path: ['x'], hook_event_name: null } },
  { name: 'no data repo', input: payload(PROMPT), env: (sb) => ({ GIT_KB_DATA: path.join(sb.root, 'missing') }) },
  { name: 'GIT_KB_DATA names a file', input: payload(PROMPT), env: (sb) => ({ GIT_KB_DATA: path.join(sb.data, 'kb.json') }) },
  { name: 'data dir that is not a git repo', input: payload(PROMPT), env: (sb) => ({ GIT_KB_DATA: sb.home }) },
  {
    name: 'malformed config file',
    input: payload(PROMPT),
    setup: (sb) => {
      fs.mkdirSync(path.join(sb.home, '.claude'), { recursive: true });
      fs.writeFileSync(path.join(sb.home, '.claude', 'kb-config.json'), '{ data_dir: nope');
    },
    env: () => ({ GIT_KB_DATA: '' }),
  },
  { name: 'corrupt index file', serves: true, input: payload(PROMPT), setup: (sb) => fs.writeFileSync(state(sb, 'prompt', 'index.v1'), crypto.randomBytes(20_000)) },
  {
    name: 'truncated index file', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      const f = state(sb, 'prompt', 'index.v1');
      fs.writeFileSync(f, fs.readFileSync(f).subarray(0, 100));
    },
  },
  {
    name: 'index with a good magic and a garbage header', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      const head = Buffer.alloc(12);
      head.write('GKBPIX01', 0, 'latin1');
      head.writeUInt32LE(50, 8);
      fs.writeFileSync(state(sb, 'prompt', 'index.v1'), Buffer.concat([head, Buffer.from('{"v":1,"key":'.padEnd(50, '!'))]));
    },
  },
  {
    name: 'index whose sections point past its end', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      const f = state(sb, 'prompt', 'index.v1');
      const buf = fs.readFileSync(f);
      const len = buf.readUInt32LE(8);
      const header = JSON.parse(buf.subarray(12, 12 + len).toString('utf8'));
      for (const k of Object.keys(header.sections)) header.sections[k] = [10_000_000, 10_000_000];
      header.nBuckets = 1;
      const h = Buffer.from(JSON.stringify(header));
      const head = Buffer.alloc(12);
      head.write('GKBPIX01', 0, 'latin1');
      head.writeUInt32LE(h.length, 8);
      fs.writeFileSync(f, Buffer.concat([head, h]));
    },
  },
  {
    name: 'index path is a directory', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      fs.rmSync(state(sb, 'prompt', 'index.v1'));
      fs.mkdirSync(state(sb, 'prompt', 'index.v1'));
    },
  },
  {
    name: 'state folder is a file (nothing can be saved)', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      fs.rmSync(state(sb), { recursive: true });
      fs.writeFileSync(state(sb), 'not a folder');
    },
  },
  { name: 'corrupt catalog cache', serves: true, input: payload(PROMPT), setup: (sb) => fs.writeFileSync(state(sb, 'catalog.v8'), crypto.randomBytes(5000)) },
  {
    name: 'entries with broken YAML, no front matter, NUL bytes and bad UTF-8', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      const dir = path.join(sb.data, 'entries');
      fs.writeFileSync(path.join(dir, 'kb-bad1-broken.md'), '---\nid: kb-bad1\ntitle: [unclosed\n---\nbody\n');
      fs.writeFileSync(path.join(dir, 'kb-bad2-nofm.md'), 'just text, no front matter\n');
      fs.writeFileSync(path.join(dir, 'kb-bad3-nul.md'), '---\nid: kb-bad3\ntitle: x\u0000y\n---\n');
      fs.writeFileSync(path.join(dir, 'kb-bad4-utf.md'), Buffer.concat([Buffer.from('---\nid: kb-bad4\ntitle: '), Buffer.from([0xff, 0xfe]), Buffer.from('\n---\n')]));
      fs.writeFileSync(path.join(dir, 'kb-bad5-js.md'), '---js\n{ title: require("fs") }\n---\n');
      fs.writeFileSync(path.join(dir, 'kb-bad6-unclosed.md'), '---\nid: kb-bad6\ntitle: never closed\n');
    },
  },
  {
    name: 'data repo mid-write by another process (lock held, journal, half-written temp file)', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      fs.writeFileSync(state(sb, 'write.lock'), `${process.pid}\nsomehost\n${Date.now()}\n`);
      fs.writeFileSync(state(sb, 'journal.json'), JSON.stringify({ paths: ['entries/kb-half-new-entry.md'], message: 'add kb-half' }));
      fs.writeFileSync(path.join(sb.data, 'entries', '.kb-half-new-entry.md.999.abcd.tmp'), '---\nid: kb-half\ntitle: Half wri');
      fs.writeFileSync(path.join(sb.data, 'entries', 'kb-half-new-entry.md'), '---\nid: kb-half\ntitle: "Half written stash pop merge');
    },
  },
  {
    name: 'a kernel entry deleted after the index was built', serves: true,
    input: payload(PROMPT),
    setup: (sb) => fs.rmSync(path.join(sb.data, entryRel(entries[2]!))),
  },
  {
    name: 'a corrupt ledger, and a ledger that is a directory', serves: true,
    input: payload(PROMPT, 'dir-ledger'),
    setup: (sb) => {
      fs.mkdirSync(state(sb, 'prompt', 'ledger', 'dir-ledger.json'), { recursive: true });
      fs.writeFileSync(state(sb, 'prompt', 'ledger', 'session-a.json'), '{"generation": ');
    },
  },
  // Hostile state files: what a hook reads on every prompt must never hold it past its deadline (a FIFO waits for a
  // writer, /dev/zero never ends) nor be read in vain prompt after prompt (an index cut short after its header).
  { name: 'the ledger is a FIFO', serves: true, input: payload(PROMPT, 'fifo-ledger'), setup: (sb) => mkfifo(state(sb, 'prompt', 'ledger', 'fifo-ledger.json')) },
  {
    name: 'the ledger is a link to /dev/zero', serves: true,
    input: payload(PROMPT, 'zero-ledger'),
    setup: (sb) => {
      fs.mkdirSync(state(sb, 'prompt', 'ledger'), { recursive: true });
      fs.symlinkSync('/dev/zero', state(sb, 'prompt', 'ledger', 'zero-ledger.json'));
    },
  },
  {
    name: 'the index file is a FIFO', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      fs.rmSync(state(sb, 'prompt', 'index.v1'));
      mkfifo(state(sb, 'prompt', 'index.v1'));
    },
  },
  { name: 'the delta file is a FIFO', serves: true, input: payload(PROMPT), setup: (sb) => mkfifo(state(sb, 'prompt', 'delta.v1')) },
  {
    name: 'the catalog cache and the id map are FIFOs (read by the rebuild)', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      for (const f of ['catalog.v8', 'ids.v2']) {
        fs.rmSync(state(sb, f), { force: true });
        mkfifo(state(sb, f));
      }
    },
  },
  { name: 'malformed hosts.yaml', serves: true, input: payload(PROMPT), setup: (sb) => fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), 'hosts: [ {key: a, forbidden: tru\n  - :\n') },
  {
    name: '.git/HEAD unreadable garbage and a missing index',
    input: payload(PROMPT),
    setup: (sb) => {
      fs.writeFileSync(path.join(sb.data, '.git', 'HEAD'), 'ref: refs/heads/../../../../etc/passwd\n');
      fs.rmSync(path.join(sb.data, '.git', 'index'), { force: true });
    },
  },
  { name: 'debug log in an unwritable place', serves: true, input: payload(PROMPT), env: (sb) => ({ KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: path.join(sb.data, 'kb.json', 'debug.jsonl') }) },
  { name: 'no HOME and no config at all', input: payload(PROMPT), env: () => ({ HOME: '', XDG_CONFIG_HOME: '' }) },
  {
    name: 'an entry folder replaced by a file',
    input: payload(PROMPT),
    setup: (sb) => {
      fs.rmSync(path.join(sb.data, 'entries'), { recursive: true });
      fs.writeFileSync(path.join(sb.data, 'entries'), 'oops');
    },
  },
  {
    name: 'thousands of tiny broken entries', serves: true,
    input: payload(PROMPT),
    setup: (sb) => {
      const bad: TestEntry[] = [];
      for (let i = 0; i < 300; i++) bad.push({ id: tid(5000 + i), title: `note ${i}`, tags: ['x'] });
      writeEntries(sb.data, bad);
      for (let i = 0; i < 300; i += 2) fs.appendFileSync(path.join(sb.data, entryRel(bad[i]!)), '\n---\n: : :\n');
    },
  },
];

describe('prompt hook fails open', () => {
  it('has at least 30 bad inputs', () => {
    expect(cases.length).toBeGreaterThanOrEqual(30);
  });

  for (const c of cases) {
    it(c.name, async () => {
      const sb = copySandbox();
      try {
        c.setup?.(sb);
        const r = await runPromptHook(sb, c.input, { raw: c.raw, env: c.env?.(sb) });
        expectFailOpen(r, c.name);
        if (c.serves) expect(r.stdout, c.name).toContain(`- ${tid(1)} — `);
      } finally {
        fs.chmodSync(sb.root, 0o755);
        sb.cleanup();
      }
    });
  }

  it('an index cut short after its whole header is rebuilt, not read in vain on every prompt', async () => {
    const sb = copySandbox();
    try {
      expect((await runPromptHook(sb, payload(PROMPT, 'cut-0'))).stdout).toContain(tid(1)); // fresh for this copy
      const f = state(sb, 'prompt', 'index.v1');
      const whole = fs.readFileSync(f);
      fs.writeFileSync(f, whole.subarray(0, 12 + whole.readUInt32LE(8) + 16));
      const r = await runPromptHook(sb, payload(PROMPT, 'cut-1'));
      expectFailOpen(r, 'cut short');
      expect(r.stdout).toContain(`- ${tid(1)} — `);
      expect(fs.statSync(f).size).toBe(whole.length);
    } finally {
      sb.cleanup();
    }
  });

  it('a repo mid-write still answers from the files as they are, and the finished write is seen next', async () => {
    const sb = copySandbox();
    try {
      fs.writeFileSync(state(sb, 'write.lock'), `${process.pid}\nsomehost\n${Date.now()}\n`);
      fs.writeFileSync(path.join(sb.data, 'entries', '.kb-t00009-x.md.1.tmp'), '---\nid: kb-t00009\ntitle: Half');
      const during = await runPromptHook(sb, payload(PROMPT, 'mid'));
      expectFailOpen(during, 'during');
      expect(during.stdout).toContain(tid(1));
      // The writer finishes: the temp file is renamed into place and the lock released.
      fs.rmSync(path.join(sb.data, 'entries', '.kb-t00009-x.md.1.tmp'));
      writeEntries(sb.data, [{ id: tid(9), title: 'Stash pop merge conflicts on staged files', tags: ['git'] }]);
      fs.rmSync(state(sb, 'write.lock'));
      const after = await runPromptHook(sb, payload(PROMPT, 'mid-2'));
      expect(after.stdout).toContain(tid(9));
    } finally {
      sb.cleanup();
    }
  });
});
