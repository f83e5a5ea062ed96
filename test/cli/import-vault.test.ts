/**
 * Importing an Obsidian vault keeps what its links need (spec/cli.md, "import"): wikilinks between its notes
 * rewritten to the new entries with their display text, attachments copied into attachments/ in the same commit
 * with embeds rewritten, inline #tags collected, `date:` taken for `created`, .obsidian/ kept out by the data
 * repo's .gitignore, and a report of everything skipped and why. Every link is checked by Obsidian's rules
 * (test/helpers/obsidian.ts) before and after.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { expectCleanRepo, makeSandbox, type Sandbox } from '../helpers/cli.js';
import { unresolvedLinks } from '../helpers/obsidian.js';
import { EXIT_CODES } from '../../src/core/errors.js';
import { commitCount, expectUnchanged, initRepo, kbd, kbj, sgit, snapshot } from './support.js';

let sb: Sandbox;
const SECRET_EXIT = EXIT_CODES.SECRET_DETECTED;
afterEach(() => sb?.cleanup());

function makeVault(root: string, files: Record<string, string | Buffer>): string {
  for (const [rel, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
    fs.writeFileSync(path.join(root, rel), content);
  }
  return root;
}

/** A real (tiny) PNG and PDF: binary, with NUL bytes, as attachments are. */
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000' + '1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082', 'hex');
const PDF = Buffer.concat([Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'), Buffer.alloc(64, 0), Buffer.from('\n%%EOF\n')]);

const VAULT = {
  '.obsidian/app.json': '{"attachmentFolderPath":"assets"}\n',
  '.obsidian/workspace.json': '{}\n',
  'Redis notes.md': 'Redis keeps the queue in memory; [the plan](projects/deep/Plan.md), ![a diagram](assets/diagram.png), [docs](https://redis.io).\n\n## Setup\n\nRun `redis-server`. #databases\n',
  'databases/Postgres queue.md': [
    '---',
    'date: 2024-03-05',
    'tags: [sql]',
    '---',
    '# Postgres queue',
    '',
    'Uses SKIP LOCKED. Compare with [[Redis notes]] and [[Redis notes#Setup|its setup]].',
    '',
    '![[diagram.png]]',
    '',
    'Tagged #Databases and #queue/jobs, not #123 and not `#notatag`.',
    '',
    '```',
    '#not-a-tag-either [[Redis notes]]',
    '```',
    '',
  ].join('\n'),
  'projects/deep/Plan.md': [
    '# The plan',
    '',
    '- [[databases/Postgres queue]] is the queue.',
    '- [[Postgres queue|the queue]] again, by name.',
    '- [[redis notes]] (case differs).',
    '- The spec: ![[spec.pdf]] and [[Plan#Later]] later.',
    '- Self: [[#Later]].',
    '',
    '## Later',
    '',
    'Done. #Project-Plan',
    '',
  ].join('\n'),
  'assets/diagram.png': PNG,
  'assets/docs/spec.pdf': PDF,
};

function fields(text: string): Record<string, any> {
  return YAML.parse(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!);
}

describe('importing an Obsidian vault', () => {
  it('keeps every link resolving: notes, headings, display text, nested folders and embedded attachments', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const vault = makeVault(path.join(sb.root, 'My Vault'), VAULT);
    // The fixture is a good vault: Obsidian resolves all its links.
    const inVault = unresolvedLinks(vault);
    expect(inVault.unresolved).toEqual([]);
    expect(inVault.links.length).toBe(11); // the one in a code block is not a link, nor the web link

    // A data repo made before git-kb wrote a .gitignore: the import adds it, as it meets a vault.
    await sgit(sb, ['rm', '-q', '.gitignore']);
    await sgit(sb, ['commit', '-q', '-m', 'an older repo, with no .gitignore']);
    const n = await commitCount(sb);
    const r = await kbj(sb, ['import', vault]);
    expect(r.imported).toBe(3);
    expect(await commitCount(sb)).toBe(n + 1);
    expect(r.attachments).toEqual([
      { file: 'assets/diagram.png', path: 'attachments/diagram.png' },
      { file: 'assets/docs/spec.pdf', path: 'attachments/spec.pdf' },
    ]);
    expect(r.skipped).toEqual([{ file: '.obsidian/', reason: expect.stringMatching(/Obsidian's settings folder/) }]);
    expect(r.unresolved).toEqual([]);
    // One commit holds the notes, the attachments (byte for byte) and the .gitignore.
    const shown = (await sgit(sb, ['show', '--name-status', '--format=%s', 'HEAD'])).trim().split('\n');
    expect(shown[0]).toBe('import 3 notes and 2 attachments from My Vault');
    expect(shown.slice(1).filter(Boolean).sort()).toEqual(['A\t.gitignore', 'A\tattachments/diagram.png', 'A\tattachments/spec.pdf', ...r.entries.map((e: { path: string }) => `A\t${e.path}`)].sort());
    expect(fs.readFileSync(path.join(sb.data, 'attachments/diagram.png')).equals(PNG)).toBe(true);
    expect(fs.readFileSync(path.join(sb.data, 'attachments/spec.pdf')).equals(PDF)).toBe(true);
    expect(fs.readFileSync(path.join(sb.data, '.gitignore'), 'utf8')).toMatch(/^\.obsidian\/$/m);

    const bySource = new Map(r.entries.map((e: { source: string; path: string; id: string }) => [e.source, e]));
    const redis = bySource.get('Redis notes.md') as { id: string; path: string };
    const pg = bySource.get('databases/Postgres queue.md') as { id: string; path: string };
    const plan = bySource.get('projects/deep/Plan.md') as { id: string; path: string };
    const name = (e: { path: string }): string => path.basename(e.path, '.md');
    const pgText = fs.readFileSync(path.join(sb.data, pg.path), 'utf8');
    expect(pgText).toContain(`Compare with [[${name(redis)}|Redis notes]] and [[${name(redis)}#Setup|its setup]].`);
    expect(pgText).toContain('![[attachments/diagram.png]]');
    expect(pgText).toContain('#not-a-tag-either [[Redis notes]]'); // code is left as it was
    // Markdown links to vault files are rewritten too, as paths from the entry's folder.
    expect(fs.readFileSync(path.join(sb.data, redis.path), 'utf8')).toContain(`[the plan](${path.basename(plan.path)}), ![a diagram](../attachments/diagram.png), [docs](https://redis.io).`);
    const planText = fs.readFileSync(path.join(sb.data, plan.path), 'utf8');
    expect(planText).toContain(`- [[${name(pg)}|databases/Postgres queue]] is the queue.`);
    expect(planText).toContain(`- [[${name(pg)}|the queue]] again, by name.`);
    expect(planText).toContain(`- [[${name(redis)}|redis notes]] (case differs).`);
    expect(planText).toContain(`- The spec: ![[attachments/spec.pdf]] and [[${name(plan)}#Later|Plan]] later.`);
    expect(planText).toContain('- Self: [[#Later]].');

    // Tags: front matter, then inline ones in written form (not in code, not headings, not all digits).
    const pgFields = fields(pgText);
    expect(pgFields.tags).toEqual(['sql', 'databases', 'queue/jobs']);
    expect(pgFields.created).toBe('2024-03-05');
    expect(pgFields.date).toBe('2024-03-05'); // kept as the note had it
    expect(fields(planText).tags).toEqual(['project-plan']);
    expect(fields(fs.readFileSync(path.join(sb.data, redis.path), 'utf8')).tags).toEqual(['databases']);

    // Every link in the data repo resolves by Obsidian's rules, attachments included.
    const after = unresolvedLinks(sb.data);
    expect(after.unresolved).toEqual([]);
    expect(after.links.length).toBe(11);
    expect((await kbj(sb, ['lint'])).ok).toBe(true);
    // Obsidian's own folder in the data repo is ignored by git.
    fs.mkdirSync(path.join(sb.data, '.obsidian'));
    fs.writeFileSync(path.join(sb.data, '.obsidian', 'workspace.json'), '{}');
    await expectCleanRepo(sb.data);

    // An edit through git-kb keeps them resolving; a second import of the vault adds nothing.
    expect((await kbd(sb, ['edit', plan.id, '--append', 'More, see #later.'])).code).toBe(0);
    expect(unresolvedLinks(sb.data).unresolved).toEqual([]);
    const again = await kbj(sb, ['import', vault]);
    expect(again.imported).toBe(1); // the note edited since differs from the vault's: it comes in again; the others are present
    expect(again.present.map((p: { file: string }) => p.file).sort()).toEqual(['Redis notes.md', 'databases/Postgres queue.md']);
    expect(again.attachments.every((a: { present?: boolean }) => a.present)).toBe(true);
    expect(unresolvedLinks(sb.data).unresolved).toEqual([]);
    await expectCleanRepo(sb.data);
  });

  it('reports what it skips and why: unsupported files, attachments over the cap, links to nothing; secrets in attachments refuse the import', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const vault = makeVault(path.join(sb.root, 'v'), {
      '.obsidian/app.json': '{}',
      'A.md': 'See [[B]], [[Not written yet]] and ![[big.mp4]] and ![[pic.png]].\n',
      'B.md': 'Bee.\n',
      'notes.txt': 'plain text\n',
      'archive.zip': Buffer.from('PK\u0003\u0004'),
      'pic.png': PNG,
    });
    fs.writeFileSync(path.join(vault, 'big.mp4'), Buffer.alloc(10 * 1024 * 1024 + 1, 1));
    const r = await kbj(sb, ['import', vault]);
    expect(r.imported).toBe(2);
    expect(r.skipped).toEqual([
      { file: '.obsidian/', reason: expect.any(String) },
      { file: 'archive.zip', reason: expect.stringMatching(/^unsupported file type \.zip/) },
      { file: 'big.mp4', reason: 'attachment of 10.0 MiB is over the 10 MiB cap: not copied' },
      { file: 'notes.txt', reason: expect.stringMatching(/^unsupported file type \.txt/) },
    ]);
    expect(r.unresolved).toEqual([
      { file: 'A.md', line: 1, link: '[[Not written yet]]', reason: 'no note or attachment of that name in the vault' },
      { file: 'A.md', line: 1, link: '![[big.mp4]]', reason: 'not imported (over the 10 MiB attachment cap)' },
    ]);
    fs.writeFileSync(path.join(vault, 'C.md'), 'Cee.\n\nSee [[Nowhere]].\n');
    const text = await kbd(sb, ['import', vault]);
    expect(text.stdout).toMatch(/^imported 1 notes \(commit [0-9a-f]{12}\); 2 already in the repo$/m);
    expect(text.stdout).toContain('skipped big.mp4: attachment of 10.0 MiB is over the 10 MiB cap: not copied');
    expect(text.stdout).toContain('link left as written: C.md:3 [[Nowhere]] (no note or attachment of that name in the vault)');
    await expectCleanRepo(sb.data);

    // A text-like attachment (an SVG) holding a secret refuses the whole import, naming it; nothing is written.
    const bad = makeVault(path.join(sb.root, 'bad'), {
      'N.md': '![[logo.svg]]\n',
      'logo.svg': `<svg xmlns="http://www.w3.org/2000/svg"><!-- token ${'ghp_'}${'A1b2C3d4E5f6G7h8J9k0'.repeat(2).slice(0, 36)} --></svg>\n`,
    });
    const snap = await snapshot(sb);
    const refused = await kbd(sb, ['import', bad]);
    expect(refused.code).toBe(SECRET_EXIT);
    expect(refused.stderr).toMatch(/logo\.svg/);
    expect(refused.stderr).toMatch(/secret/);
    await expectUnchanged(sb, snap);
    // --redact imports the note and leaves the attachment out, saying so.
    const redacted = await kbj(sb, ['import', bad, '--redact']);
    expect(redacted.imported).toBe(1);
    expect(redacted.skipped).toEqual([{ file: 'logo.svg', reason: expect.stringMatching(/secret-shaped content .*not copied/) }]);
    expect(fs.existsSync(path.join(sb.data, 'attachments', 'logo.svg'))).toBe(false);
    await expectCleanRepo(sb.data);
  });

  it('keeps inline code in the text of a rewritten link, and a rerun finds every such note present', async () => {
    sb = makeSandbox();
    await initRepo(sb);
    const vault = makeVault(path.join(sb.root, 'code'), {
      'Sizes.md': '# Sizes\n\nUse it with [`pg_database_size()`](Target.md), [[Target|the `x` target]] and\n[using the `uuid-ossp` extension](Target.md "a `t` title").\n',
      'Target.md': '# Target\n\nThe target.\n',
    });
    const first = await kbj(sb, ['import', vault]);
    expect(first.imported).toBe(2);
    const sizes = first.entries.find((e: { source: string }) => e.source === 'Sizes.md');
    const text = fs.readFileSync(path.join(sb.data, sizes.path), 'utf8');
    expect(text).toContain('[`pg_database_size()`](');
    expect(text).toContain('|the `x` target]]');
    expect(text).toContain('[using the `uuid-ossp` extension](');
    expect(text).toContain('"a `t` title")');
    const again = await kbj(sb, ['import', vault]);
    expect(again).toMatchObject({ imported: 0 });
    expect(again.present).toHaveLength(2);
    await expectCleanRepo(sb.data);
  });
});
