/**
 * Real public vaults survive `import` with every link (spec/cli.md, "import"; spec/entry-format.md, "Links"):
 * before the import each link of each note is resolved by Obsidian's rules (test/helpers/obsidian.ts, written
 * apart from the product's code), and afterwards the same link of the entry that note became must resolve to
 * what that file became (an entry, or a copied attachment). 0 links lost, and the import reports none of them
 * as unresolved.
 *
 * - kepano-obsidian (MIT, copied under test/fixtures/vaults): links in bodies and in front matter properties
 *   (`categories: ["[[Books]]"]`), embeds of Obsidian Bases, an image. Always runs.
 * - obsidian-help's English vault (no license to copy it, so read from a local mirror at a pinned commit when one
 *   is there, as `fetch github:obsidianmd/obsidian-help` leaves it): 1,800+ links, 46 of them `[[Target\|alias]]`
 *   inside tables. Skipped when the mirror is absent.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { vaultFiles, vaultLinkMap } from '../helpers/obsidian.js';
import { initRepo, kbj } from './support.js';

let sb: Sandbox;
afterEach(() => sb?.cleanup());

const KEPANO = path.resolve(__dirname, '../fixtures/vaults/kepano-obsidian');
const HELP_MIRROR = process.env.OBSIDIAN_HELP_GIT ?? '/work/.mirror/obsidianmd+obsidian-help/repo';
const HELP_COMMIT = 'fa179e91e86eaff5859226cc045c81000d64e3cd';

function copyDir(from: string, to: string): void {
  fs.cpSync(from, to, { recursive: true });
}

/** obsidian-help's `en/` at the pinned commit, laid out under `to` (files the mirror lacks, large videos, left out). */
function layOutHelp(to: string): boolean {
  if (!fs.existsSync(HELP_MIRROR)) return false;
  let commit: string;
  try {
    commit = execFileSync('git', ['--git-dir', HELP_MIRROR, 'rev-parse', '--verify', '-q', `${HELP_COMMIT}^{commit}`], { encoding: 'utf8' }).trim();
  } catch {
    return false;
  }
  const list = execFileSync('git', ['--git-dir', HELP_MIRROR, 'ls-tree', '-r', '-z', commit, 'en'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  for (const line of list.split('\0').filter(Boolean)) {
    const [meta, file] = line.split('\t') as [string, string];
    const sha = meta.split(' ')[2]!;
    let bytes: Buffer;
    try {
      bytes = execFileSync('git', ['--git-dir', HELP_MIRROR, 'cat-file', 'blob', sha], { maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
    } catch {
      continue; // a large file the mirror holds no copy of
    }
    const abs = path.join(to, file.replace(/^en\//, ''));
    fs.mkdirSync(path.dirname(abs), { recursive: true });
    fs.writeFileSync(abs, bytes);
  }
  fs.mkdirSync(path.join(to, '.obsidian'), { recursive: true });
  return true;
}

interface Imported {
  imported: number;
  entries: { id: string; path: string; source: string }[];
  attachments: { file: string; path: string }[];
  unresolved: { file: string; line: number; link: string; reason: string }[];
  skipped: { file: string; reason: string }[];
}

/**
 * Imports `vault` and compares every note's links before and after by Obsidian's rules. Returns how many links
 * resolved before, and those lost (resolving to nothing, or to another file than the one their target became).
 */
async function importAndCompare(vault: string, flags: string[] = []): Promise<{ resolved: number; lost: string[]; r: Imported }> {
  const before = vaultLinkMap(vault);
  const r = await kbj<Imported>(sb, ['import', vault, ...flags]);
  const skipped = new Set(r.skipped.map((s) => s.file));
  const became = new Map<string, string>([...r.entries.map((e) => [e.source, e.path] as const), ...r.attachments.map((a) => [a.file, a.path] as const)]);
  const repoFiles = vaultFiles(sb.data);
  const after = vaultLinkMap(sb.data);
  let resolved = 0;
  const lost: string[] = [];
  for (const [note, links] of before) {
    const entry = became.get(note);
    const was = links.filter((l) => l.dest);
    resolved += was.length;
    if (!entry) {
      // A note the import refused (--skip-invalid) is reported with its reason; its links went with it.
      if (!skipped.has(note)) lost.push(`${note}: neither imported nor reported as skipped (${was.length} links)`);
      continue;
    }
    // The entry's links (a note's own `type` property moves to `vault_type`, so compare them as a multiset).
    const now = (after.get(entry) ?? []).filter((l) => !/^- [a-z_]+: \[\[/.test(l.link.raw));
    const left = now.map((l) => l.dest ?? '(nothing)');
    for (const l of was) {
      const want = l.dest === note ? entry : became.get(l.dest!);
      if (!want) {
        // A link to a note that was skipped: left as written, and reported.
        if (!skipped.has(l.dest!) || !r.unresolved.some((u) => u.file === note && u.link === l.link.raw)) lost.push(`${note}: ${l.link.raw} -> ${l.dest}, which was neither imported nor reported`);
        continue;
      }
      const i = left.indexOf(want);
      if (i === -1) lost.push(`${note}: ${l.link.raw} -> ${l.dest}; after the import no link of ${entry} resolves to ${want}`);
      else left.splice(i, 1);
    }
  }
  expect(repoFiles.length).toBeGreaterThan(0);
  return { resolved, lost, r };
}

describe('importing a real public vault keeps every link', () => {
  it('kepano-obsidian: body links, property links, Bases embeds, the image', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const vault = path.join(sb.root, 'kepano-obsidian');
    copyDir(KEPANO, vault);
    // Some of its notes are not entries git-kb accepts, each named with its reason (templates whose front matter
    // is `{{date}}` placeholders, not YAML; a `host` or `url` property that means something else there; an emoji
    // tag): --skip-invalid imports the rest.
    const { resolved, lost, r } = await importAndCompare(vault, ['--skip-invalid']);
    expect(lost).toEqual([]);
    expect(r.imported).toBeGreaterThan(60);
    expect(resolved).toBeGreaterThan(140);
    // No link that resolved to an imported file is reported as unresolved by the import.
    const before = vaultLinkMap(vault);
    const imported = new Set([...r.entries.map((e) => e.source), ...r.attachments.map((a) => a.file)]);
    const resolvedRaw = new Set([...before].flatMap(([f, ls]) => ls.filter((l) => l.dest && imported.has(l.dest)).map((l) => `${f}\t${l.link.raw}`)));
    expect(r.unresolved.filter((u) => resolvedRaw.has(`${u.file}\t${u.link}`))).toEqual([]);
  });

  it.skipIf(!fs.existsSync(HELP_MIRROR))('obsidian-help (English): every link, the escaped [[Target\\|alias]] of tables among them', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const vault = path.join(sb.root, 'obsidian-help');
    if (!layOutHelp(vault)) return; // the pinned commit is not in this mirror
    const { resolved, lost, r } = await importAndCompare(vault);
    expect(lost).toEqual([]);
    expect(resolved).toBeGreaterThan(1700);
    const before = vaultLinkMap(vault);
    const resolvedRaw = new Set([...before].flatMap(([f, ls]) => ls.filter((l) => l.dest).map((l) => `${f}\t${l.link.raw}`)));
    expect(r.unresolved.filter((u) => resolvedRaw.has(`${u.file}\t${u.link}`))).toEqual([]);
    // The table links keep their escaped bar, so the tables still render.
    const escaped = vaultFiles(sb.data).filter((f) => f.endsWith('.md')).flatMap((f) => fs.readFileSync(path.join(sb.data, f), 'utf8').match(/\[\[kb-[^\]|]*\\\|[^\]]*\]\]/g) ?? []);
    expect(escaped.length).toBeGreaterThanOrEqual(40);
  }, 300_000);
});
