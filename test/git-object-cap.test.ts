/**
 * The object cap (MAX_OBJECT_BYTES) holds whatever size a packed object's header claims: a crafted pack whose one
 * blob says it is 5 bytes but inflates to 300 MB (zeros: 300 KB packed) is refused as ObjectTooLarge, naming the
 * object, by both pack readers (a pack in the repo, read by ObjectReader; a fetched pack, stored by storePack),
 * never inflated whole.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { promisify } from 'node:util';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { withChecksum } from '../src/adapters/git/encoding.js';
import { storePack } from '../src/adapters/git/objects.js';
import { encodePack, encodePackIndex } from '../src/adapters/git/pack.js';
import { MAX_OBJECT_BYTES, ObjectTooLarge } from '../src/adapters/git/pack-read.js';
import { ObjectReader } from '../src/adapters/git/reader.js';
import { cleanGitEnv } from './helpers/git-server.js';

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
