/** adapters/index/ids.ts: lookups after writes and patches (spliced and re-encoded) equal a fresh map's; a patch of a map under another key is refused. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { closeIdMap, currentNamesKey, openIdMap, patchIdMap, pathsInMap, writeIdMap } from '../src/adapters/index/ids.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-ids-'));
fs.mkdirSync(path.join(dir, 'entries'));
fs.mkdirSync(path.join(dir, '.git', 'git-kb'), { recursive: true });
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const id = (n: number): string => `kb-${n.toString(36).padStart(6, '0')}zz`;
function lookupAll(ids: string[]): Record<string, string[]> {
  const map = openIdMap(dir)!;
  try {
    return Object.fromEntries(ids.map((i) => [i, pathsInMap(map, i).sort()]));
  } finally {
    closeIdMap(map);
  }
}

describe('id map', () => {
  it('gives what was written, then what each patch leaves, spliced or re-encoded', () => {
    const files = new Map<string, string[]>();
    for (let n = 0; n < 500; n++) files.set(id(n), [`entries/${id(n)}-note-${n}.md`]);
    files.get(id(7))!.push(`entries/${id(7)}-twice.md`); // an id claimed twice
    const key = currentNamesKey(dir);
    writeIdMap(dir, key, [...files].flatMap(([i, ps]) => ps.map((p) => ({ id: i, path: p }))));
    const all = (): string[] => [...files.keys(), id(9999), id(10000)];
    const expected = (): Record<string, string[]> => Object.fromEntries(all().map((i) => [i, [...(files.get(i) ?? [])].sort()]));
    expect(lookupAll(all())).toEqual(expected());
    // A few changes: spliced.
    const few = [
      { id: id(9999), path: `entries/${id(9999)}-new.md`, deleted: false },
      { id: id(3), path: `entries/${id(3)}-note-3.md`, deleted: true },
      { id: id(7), path: `entries/${id(7)}-twice.md`, deleted: true },
    ];
    patchIdMap(dir, key, few);
    files.set(id(9999), [`entries/${id(9999)}-new.md`]);
    files.delete(id(3));
    files.set(id(7), [`entries/${id(7)}-note-7.md`]);
    expect(lookupAll(all())).toEqual(expected());
    // Up to SPLICE_MAX changes, several in one bucket (500 entries hold few buckets), adds and deletes mixed.
    const mid = Array.from({ length: 40 }, (_, k) => (k % 2 ? { id: id(30000 + k), path: `entries/${id(30000 + k)}-mid.md`, deleted: false } : { id: id(100 + k), path: `entries/${id(100 + k)}-note-${100 + k}.md`, deleted: true }));
    patchIdMap(dir, currentNamesKey(dir), mid);
    for (const c of mid) {
      if (c.deleted) files.delete(c.id);
      else files.set(c.id, [c.path]);
    }
    expect(lookupAll([...all(), ...mid.map((c) => c.id)])).toEqual(Object.fromEntries([...all(), ...mid.map((c) => c.id)].map((i) => [i, [...(files.get(i) ?? [])].sort()])));
    // Many changes: re-encoded.
    const many = Array.from({ length: 100 }, (_, k) => ({ id: id(20000 + k), path: `entries/${id(20000 + k)}-bulk.md`, deleted: false }));
    patchIdMap(dir, currentNamesKey(dir), many);
    for (const c of many) files.set(c.id, [c.path]);
    expect(lookupAll([...all(), ...many.map((c) => c.id)])).toEqual(Object.fromEntries([...all(), ...many.map((c) => c.id)].map((i) => [i, [...(files.get(i) ?? [])].sort()])));
  });

  it('leaves a map of another key alone', () => {
    const before = fs.readFileSync(path.join(dir, '.git', 'git-kb', 'ids.v2'));
    patchIdMap(dir, 'some other key', [{ id: id(1), path: `entries/${id(1)}-x.md`, deleted: false }]);
    expect(fs.readFileSync(path.join(dir, '.git', 'git-kb', 'ids.v2'))).toEqual(before);
  });
});
