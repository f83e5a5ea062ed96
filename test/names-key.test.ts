/** fresh.ts: the names key moves with every create, delete and rename in an entry folder, not with an edit in place; and it is not recorded while a folder changed just now (git's racy case). */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { SETTLED_MS, namesKey, settledNamesKey } from '../src/adapters/index/fresh.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-names-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
const dirs = ['.', 'entries'];

describe('names key', () => {
  it('moves on create, rename and delete, not on an edit in place', async () => {
    fs.mkdirSync(path.join(dir, 'entries'));
    fs.writeFileSync(path.join(dir, 'entries', 'a.md'), 'a');
    const k0 = namesKey(dir, dirs);
    await new Promise((r) => setTimeout(r, 20));
    fs.writeFileSync(path.join(dir, 'entries', 'a.md'), 'changed in place');
    expect(namesKey(dir, dirs)).toBe(k0);
    fs.renameSync(path.join(dir, 'entries', 'a.md'), path.join(dir, 'entries', 'b.md'));
    const k1 = namesKey(dir, dirs);
    expect(k1).not.toBe(k0);
    await new Promise((r) => setTimeout(r, 20));
    fs.rmSync(path.join(dir, 'entries', 'b.md'));
    expect(namesKey(dir, dirs)).not.toBe(k1);
  });

  it('is not to be recorded right after a folder changed, and is once it settled', () => {
    fs.writeFileSync(path.join(dir, 'entries', 'c.md'), 'c');
    const st = fs.statSync(path.join(dir, 'entries'));
    expect(settledNamesKey(dir, dirs, st.mtimeMs + 1)).toBeUndefined();
    expect(settledNamesKey(dir, dirs, st.mtimeMs + SETTLED_MS + 1)).toBe(namesKey(dir, dirs));
  });
});
