/**
 * Issue 30: a secret given in a short field lands more often than one in a body, because lower-casing and
 * splitting hide its shape before the scan. Through the real CLI, each provider-shaped secret of the battery is
 * given alone in fields of several paths (each secret in about a third of the paths, every path with a third of
 * the secrets): `add --tags/--aliases/--url/--pattern-key`, `edit --add-tag`, `import` of a note named after it,
 * `adopt` of such a note, `host register --marker`, `host forbid`. Each is refused (exit 5, SECRET_DETECTED, the
 * field or file named), its output holds no part of the secret, and afterwards no git object, path, index or cache
 * of the data repos does (any case, or a 16-character piece). The same fields in process, every field with every
 * shape: test/app/secret-inputs.test.ts.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, makeSandbox, type RunResult, type Sandbox } from '../helpers/cli.js';
import { shapedAlone, type BatteryItem } from '../fixtures/secrets.js';
import { findSecrets } from '../../src/core/secrets/scan.js';
import { everythingIn, holds } from '../hostile/support.js';
import { kbj, pool, type Added } from './support.js';

let sb: Sandbox;
let target: Added;
const adoptRepo = (): string => path.join(sb.root, 'adopt-data');

beforeAll(async () => {
  sb = makeSandbox('gkb-fields-');
  target = await kbj<Added>(sb, ['add', '--type', 'decision', '--title', 'Entry edits try to leak into', '--', 'Harmless.']);
  await kbj(sb, ['add', '--type', 'decision', '--title', 'First entry of the adopt repo', '--', 'Harmless.'], { data: adoptRepo() });
}, 60_000);
afterAll(() => sb.cleanup());

const SHAPES = shapedAlone((s) => findSecrets(s).length > 0);
/** File names cannot hold `/`, and stay under 255 bytes with `.md`. */
const nameable = (s: string): boolean => !s.includes('/') && s.length < 200;

interface Path {
  name: string;
  run: (item: BatteryItem, i: number) => Promise<RunResult>;
  /** What the refusal names: the field, or the note's file. */
  names: (item: BatteryItem, i: number) => string;
  fits?: (s: string) => boolean;
}

const kbd = (args: string[], data = sb.data): Promise<RunResult> => kb(sb, ['--data', data, '--json', ...args]);

const PATHS: Path[] = [
  { name: 'add --tags', run: (it) => kbd(['add', '--type', 'factual_reference', '--title', 'Tags', '--tags', `ops,${it.secret}`]), names: () => 'in the tags' },
  { name: 'add --aliases', run: (it) => kbd(['add', '--type', 'factual_reference', '--title', 'Aliases', '--aliases', it.secret]), names: () => 'in the aliases' },
  { name: 'add --url', run: (it) => kbd(['add', '--type', 'bookmark', '--title', 'Url', '--url', it.secret]), names: () => 'in the url' },
  { name: 'add --pattern-key', run: (it) => kbd(['add', '--type', 'lesson_learned', '--title', 'Lesson', '--pattern-key', it.secret, '--', 'Body.']), names: () => 'in the pattern key' },
  { name: 'edit --add-tag', run: (it) => kbd(['edit', target.id, '--add-tag', it.secret]), names: () => 'in the added tags' },
  {
    name: 'import (file name)',
    run: (it, i) => {
      const dir = path.join(sb.root, `import-${i}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${it.secret}.md`), '# A harmless title\n\nA harmless body.\n');
      return kbd(['import', dir]);
    },
    names: (it) => it.kind,
    fits: nameable,
  },
  {
    name: 'adopt (file name)',
    run: (it) => {
      const file = path.join(adoptRepo(), 'entries', `${it.secret}.md`);
      fs.writeFileSync(file, '# A harmless title\n\nA harmless body.\n');
      return kbd(['adopt', path.relative(adoptRepo(), file)], adoptRepo()).finally(() => fs.rmSync(file));
    },
    names: () => 'in the file name',
    fits: nameable,
  },
  { name: 'host register --marker', run: (it) => kbd(['host', 'register', 'web1', '--marker', it.secret]), names: () => 'in a marker' },
  { name: 'host forbid', run: (it) => kbd(['host', 'forbid', it.secret]), names: () => 'in the forbidden pattern' },
];

/** Each secret goes through every third path, rotating, so every path sees a third of the secrets. */
const cases = SHAPES.flatMap((item, i) => PATHS.filter((p, j) => (i + j) % 3 === 0 && (p.fits?.(item.secret) ?? true)).map((p) => ({ item, i, p })));

describe('a secret in a short field is refused as typed (issue 30)', () => {
  it('has the cases: every path, and every provider shape in some path', () => {
    expect(SHAPES.length).toBeGreaterThanOrEqual(60);
    for (const p of PATHS) expect(cases.filter((c) => c.p === p).length, p.name).toBeGreaterThanOrEqual(15);
    for (const item of SHAPES) expect(cases.some((c) => c.item === item), item.kind).toBe(true);
  });

  it('refuses each with SECRET_DETECTED, naming the field, printing no part of the secret', { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    // The adopt repo is one repo: its cases run one at a time (each takes its lock); the rest two at a time.
    const serial = cases.filter((c) => c.p.name.startsWith('adopt'));
    const rest = cases.filter((c) => !c.p.name.startsWith('adopt'));
    const check = async ({ item, i, p }: (typeof cases)[number]): Promise<void> => {
      const r = await p.run(item, i);
      const label = `#${i} ${item.kind} via ${p.name}`;
      if (holds(r.stdout + r.stderr, item.secret)) failures.push(`${label}: the output holds part of it`);
      if (r.code !== 5) return void failures.push(`${label}: exit ${r.code}`);
      const e = JSON.parse(r.stderr).error as { code: string; message: string };
      if (e.code !== 'SECRET_DETECTED') failures.push(`${label}: ${e.code}`);
      else if (!e.message.includes(p.names(item, i))) failures.push(`${label}: the message does not name ${p.names(item, i)}`);
    };
    await Promise.all([pool(rest, 2, check), pool(serial, 1, check)]);
    expect(failures).toEqual([]);
  });

  it('host add of a private key block (an argument commander reads as an option, and stdin) prints none of it', async () => {
    const lines = Array.from({ length: 6 }, (_, i) => Buffer.from(`line ${i} of a fake key `.repeat(3)).toString('base64').slice(0, 64));
    const block = ['-----' + 'BEGIN RSA PRIVATE ' + 'KEY-----', ...lines, '-----' + 'END RSA PRIVATE ' + 'KEY-----'].join('\n');
    for (const [args, input] of [[['host', 'add', 'web1', block], undefined], [['host', 'add', 'web1'], block]] as const) {
      const r = await kb(sb, ['--data', sb.data, ...args], { input });
      expect(r.code).not.toBe(0);
      for (const l of lines) expect(r.stdout + r.stderr).not.toContain(l.slice(0, 16));
    }
  });

  it('left no part of any secret in a git object, path, index or cache of the data repos', async () => {
    for (const dir of [sb.data, adoptRepo()]) {
      const all = await everythingIn(dir, sb.env);
      expect(all).toContain(dir === sb.data ? target.id : 'First entry'); // the dump really holds the repo's content
      const leaked = SHAPES.filter((item) => holds(all, item.secret)).map((item) => item.kind);
      expect(leaked, dir).toEqual([]);
    }
  });
});
