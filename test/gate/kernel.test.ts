/**
 * The gate's kernel, read from the prompt index (`.git/git-kb/prompt/index.v1`, the one kernel cache): served
 * as it is while nothing changed, rebuilt after a git-kb write, a hand edit of a kernel file, a plain-git commit,
 * a deleted file or a corrupt index.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexFile } from '../../src/adapters/index/fresh.js';
import { kernelRules, loadGateKernel as loadKernel } from '../../src/app/gate.js';
import { git, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { addKernel, setRules } from './support.js';

let sb: Sandbox;
let style: { id: string; path: string };

beforeAll(async () => {
  sb = makeSandbox('gkb-kernel-');
  style = await addKernel(sb, { title: 'House style', body: 'Plain words.', rules: [{ pattern: '\\bleverage\\b', message: 'Say "use".' }] });
  const r = await kb(sb, ['--data', sb.data, 'add', '--type', 'decision', '--title', 'Not kernel', '--', 'Ordinary entry.']);
  expect(r.code).toBe(0);
});
afterAll(() => sb.cleanup());

describe('loadGateKernel', () => {
  it('rebuilds when the index is missing, then serves it', async () => {
    fs.rmSync(indexFile(sb.data), { force: true });
    const first = await loadKernel(sb.data);
    expect(first.state).toMatch(/^rebuilt \(missing\)/);
    expect(first.entries.map((e) => [e.id, e.title, e.body])).toEqual([[style.id, 'House style', 'Plain words.']]);
    expect(kernelRules(first)).toEqual([{ id: style.id, title: 'House style', index: 1, pattern: '\\bleverage\\b', message: 'Say "use".' }]);
    const second = await loadKernel(sb.data);
    expect(second.state).toBe('fresh');
    expect(second.digest).toBe(first.digest);
  });

  it('sees an uncommitted hand edit of a kernel file', async () => {
    await loadKernel(sb.data);
    const file = path.join(sb.data, style.path);
    fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('Plain words.', 'Plain, short words.'));
    const k = await loadKernel(sb.data);
    expect(k.state).toMatch(/^rebuilt/);
    expect(k.entries[0]!.body).toBe('Plain, short words.');
    await git(sb.data, ['commit', '-qam', 'hand edit'], sb.env);
  });

  it('sees new rules committed with plain git, and keeps only the valid ones', async () => {
    await setRules(sb, style.path, [
      { pattern: '\\bleverage\\b', message: 'Say "use".' },
      { pattern: '(a+)+$', message: 'runaway, refused' },
      { pattern: '!{2,}', message: 'One at most.', flags: '' },
    ]);
    const k = await loadKernel(sb.data);
    expect(k.state).toMatch(/^rebuilt/);
    expect(kernelRules(k).map((r) => [r.index, r.pattern])).toEqual([
      [1, '\\bleverage\\b'],
      [2, '!{2,}'],
    ]);
  });

  it('sees a new kernel entry, and an entry made kernel by git-kb edit', async () => {
    const before = await loadKernel(sb.data);
    await addKernel(sb, { title: 'Commit style', body: 'Imperative subject lines.' });
    let k = await loadKernel(sb.data);
    expect(k.entries.map((e) => e.title)).toEqual(expect.arrayContaining(['House style', 'Commit style']));
    expect(k.digest).not.toBe(before.digest);
    const list = JSON.parse((await kb(sb, ['--data', sb.data, 'list', '--json'])).stdout) as { entries: Array<{ id: string; title: string }> };
    const plain = list.entries.find((e) => e.title === 'Not kernel')!;
    expect((await kb(sb, ['--data', sb.data, 'edit', plain.id, '--kernel'])).code).toBe(0);
    k = await loadKernel(sb.data);
    expect(k.entries.map((e) => e.title)).toContain('Not kernel');
  });

  it('sees a deleted kernel file and survives a corrupt index', async () => {
    const k0 = await loadKernel(sb.data);
    const commit = k0.entries.find((e) => e.title === 'Commit style')!;
    fs.rmSync(path.join(sb.data, commit.path));
    let k = await loadKernel(sb.data);
    expect(k.entries.map((e) => e.title)).not.toContain('Commit style');
    fs.writeFileSync(indexFile(sb.data), 'GKBPIX01{"v":2,"key":');
    k = await loadKernel(sb.data);
    expect(k.state).toMatch(/^rebuilt \(missing\)/);
    expect(k.entries.length).toBeGreaterThan(0);
  });
});
