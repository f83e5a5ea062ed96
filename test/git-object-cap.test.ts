/**
 * The object cap (MAX_OBJECT_BYTES) holds whatever size a packed object's header claims: a crafted pack whose one
 * blob says it is 5 bytes but inflates to 300 MB (zeros: 300 KB packed) is refused as ObjectTooLarge, naming the
 * object, by both pack readers (a pack in the repo, read by ObjectReader; a fetched pack, stored by storePack),
 * never inflated whole. And sync over HTTP of a real remote commit with a 300 MB file: the pack is refused naming
 * the file, and isomorphic-git's own fetch (which would inflate the object whole) is never tried.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withChecksum } from '../src/adapters/git/encoding.js';
import { storePack } from '../src/adapters/git/objects.js';
import { encodePack, encodePackIndex } from '../src/adapters/git/pack.js';
import { MAX_OBJECT_BYTES, ObjectTooLarge } from '../src/adapters/git/pack-read.js';
import { ObjectReader } from '../src/adapters/git/reader.js';
import { expectCleanRepo, git, kb, makeSandbox, type Sandbox } from './helpers/cli.js';
import { cleanGitEnv, startGitServer, type GitServer } from './helpers/git-server.js';

const run = promisify(execFile);
const env = cleanGitEnv({ GIT_CONFIG_GLOBAL: '/dev/null' });

/** A pack of one blob whose header says 5 bytes ("small") and whose data inflates to 300 MB; its id is small's. */
let lying: { pack: Buffer; idx: Buffer; oid: string };
beforeAll(() => {
  const { pack, entries } = encodePack([{ type: 'blob', data: Buffer.from('small') }]);
  const big = zlib.deflateSync(Buffer.alloc(300 * 2 ** 20), { level: 1 });
  const crafted = withChecksum(pack.subarray(0, 13), big); // 12 bytes of pack header, 1 of object header (blob, 5)
  lying = { pack: crafted, idx: encodePackIndex(entries, crafted), oid: entries[0]!.oid.toString('hex') };
}, 60_000);

let repo: string;
beforeEach(async () => {
  repo = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-objcap-'));
  await run('git', ['init', '-q', '-b', 'main', repo], { env });
});
afterEach(() => fs.rmSync(repo, { recursive: true, force: true }));

function expectCapped(err: unknown): void {
  expect(err).toBeInstanceOf(ObjectTooLarge);
  expect((err as Error).message).toContain(`over ${MAX_OBJECT_BYTES / 2 ** 20} MB`);
}

it('a pack in the repo whose object header understates its size: the reader refuses it, naming the object, and does not fall back to reading it whole', async () => {
  const base = path.join(repo, '.git', 'objects', 'pack', 'pack-crafted');
  fs.writeFileSync(`${base}.pack`, lying.pack);
  fs.writeFileSync(`${base}.idx`, lying.idx);
  const reader = new ObjectReader(repo);
  try {
    // Before: the pack reader inflated without a cap, trusting the header, and returned all 300 MB.
    const err = await reader.read(lying.oid).then(
      (o) => o.data.length,
      (e: unknown) => e,
    );
    expectCapped(err);
    expect((err as Error).message).toContain(lying.oid.slice(0, 12));
  } finally {
    reader.close();
  }
}, 60_000);

it('a fetched pack whose object header understates its size: storePack refuses it as ObjectTooLarge, not a RangeError, and stores nothing', async () => {
  const reader = new ObjectReader(repo);
  try {
    // Before: zlib's maxOutputLength stopped the inflate, but its RangeError ("Cannot create a Buffer larger than")
    // came out as it was.
    const err = await storePack(repo, lying.pack, reader).then(
      (n) => n,
      (e: unknown) => e,
    );
    expectCapped(err);
    expect((err as Error).message).toContain("the fetched pack's object at 12");
  } finally {
    reader.close();
  }
  expect(fs.readdirSync(path.join(repo, '.git', 'objects')).filter((d) => /^[0-9a-f]{2}$/.test(d))).toEqual([]);
}, 60_000);

describe('sync over HTTP of a remote commit adding a file of 300 MB (zeros: tiny packed)', () => {
  let server: GitServer;
  let sb: Sandbox;
  afterEach(async () => {
    await server?.stop();
    sb?.cleanup();
  });

  it('the fetched pack is refused naming the file, its id and size; no fallback fetch, nothing stored, the branch does not move', async () => {
    server = await startGitServer();
    const bare = server.createBare('kb');
    sb = makeSandbox('gkb-objcap-sync-');
    expect((await kb(sb, ['--data', sb.data, 'init', '--clone', server.repoUrl('kb')])).code).toBe(0);
    expect((await kb(sb, ['--data', sb.data, 'add', '--type', 'lesson_learned', '--title', 'A note', 'Body.'])).code).toBe(0);
    const first = await kb(sb, ['--data', sb.data, 'sync']);
    expect(first.code, first.stderr).toBe(0);
    // Someone else, with plain git, pushes a sparse 300 MB file (no 300 MB written to disk here).
    const other = path.join(sb.root, 'other');
    await git(sb.root, ['clone', '-q', bare, other], sb.env);
    fs.mkdirSync(path.join(other, 'attachments'));
    fs.closeSync(fs.openSync(path.join(other, 'attachments', 'big.bin'), 'w'));
    fs.truncateSync(path.join(other, 'attachments', 'big.bin'), 300 * 2 ** 20);
    await git(other, ['add', 'attachments/big.bin'], sb.env);
    await git(other, ['commit', '-q', '-m', 'a huge attachment'], sb.env);
    await git(other, ['push', '-q', 'origin', 'main'], sb.env);
    const tip = (await git(other, ['rev-parse', 'HEAD'], sb.env)).trim();
    const blob = (await git(other, ['rev-parse', 'HEAD:attachments/big.bin'], sb.env)).trim();

    const head = (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
    const packDir = path.join(sb.data, '.git', 'objects', 'pack');
    const packs = (): string[] => (fs.existsSync(packDir) ? fs.readdirSync(packDir).sort() : []);
    const before = packs();
    const r = await kb(sb, ['--data', sb.data, 'sync', '--json']);
    // Before: storePack's refusal fell back to isomorphic-git's fetch, which inflated the object whole (300 MB
    // here, a multi-GB one exhausts memory) and wrote the pack it received into .git/objects/pack.
    expect(r.code, r.stderr).toBe(6);
    expect(packs()).toEqual(before);
    const err = JSON.parse(r.stderr).error;
    expect(err.code).toBe('SYNC_FAILED');
    expect(err.message).toContain(`the remote's main (commit ${tip.slice(0, 12)}) holds attachments/big.bin, a git object (${blob.slice(0, 12)}) of 300 MB; git-kb reads none over 256 MB`);
    expect(err.message).toMatch(/Nothing was fetched or checked out and the branch did not move\..*local commits are kept$/s);
    expect(err.data).toMatchObject({ path: 'attachments/big.bin', commit: tip, oid: blob, size: 300 * 2 ** 20 });
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
    await expect(git(sb.data, ['cat-file', '-e', blob], sb.env)).rejects.toThrow();
    await expect(git(sb.data, ['cat-file', '-e', tip], sb.env)).rejects.toThrow();
    expect(fs.existsSync(path.join(sb.data, '.git', 'git-kb', 'journal.json'))).toBe(false);
    await expectCleanRepo(sb.data);
    const add = await kb(sb, ['--data', sb.data, 'add', '--type', 'lesson_learned', '--title', 'Still writable', 'Yes.']);
    expect(add.code, add.stderr).toBe(0);
  }, 120_000);
});
