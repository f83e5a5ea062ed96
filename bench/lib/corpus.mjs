// Replicated corpora for benchmarks: the real notes of ../shared/corpus/jbranchaud-til written as git-kb
// entries with new ids and titles, N in all, committed with plain git (fast). Cached by size under bench/.work/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export const CORPUS = path.resolve(import.meta.dirname, '..', '..', '..', 'shared', 'corpus', 'jbranchaud-til');
export const WORK = path.resolve(import.meta.dirname, '..', '.work');

/** The corpus notes: { folder, file, title, body }. */
export function readCorpus() {
  const notes = [];
  for (const folder of fs.readdirSync(CORPUS).sort()) {
    const dir = path.join(CORPUS, folder);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const file of fs.readdirSync(dir).sort()) {
      if (!file.endsWith('.md')) continue;
      const text = fs.readFileSync(path.join(dir, file), 'utf8');
      const m = /^#\s+(.+)$/m.exec(text);
      const title = m ? m[1].trim() : file.replace(/\.md$/, '');
      const body = m ? text.slice(m.index + m[0].length).replace(/^\n+/, '') : text;
      notes.push({ folder, file, title, body });
    }
  }
  return notes;
}

const WORDS = ['alpha', 'bravo', 'delta', 'echo', 'foxtrot', 'golf', 'hotel', 'india', 'kilo', 'lima', 'mike', 'oscar', 'papa', 'romeo', 'sierra', 'tango'];

function slug(s) {
  return s.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 50).replace(/-$/, '') || 'entry';
}

function yamlString(s) {
  return JSON.stringify(s);
}

/** Writes an N-entry data repo (cached) and returns its path. Replica k > 0 gets a distinct title suffix. */
export function replicatedRepo(n, options = {}) {
  const dir = options.dir ?? path.join(WORK, `repo-${n}`);
  if (fs.existsSync(path.join(dir, '.git')) && !options.fresh) return dir;
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(path.join(dir, 'entries'), { recursive: true });
  const notes = readCorpus();
  fs.writeFileSync(path.join(dir, 'kb.json'), '{\n  "schema_version": 2\n}\n');
  const base = Date.UTC(2024, 0, 1) / 1000;
  for (let i = 0; i < n; i++) {
    const note = notes[i % notes.length];
    const k = Math.floor(i / notes.length);
    const title = k === 0 ? note.title : `${note.title} (${WORDS[k % WORDS.length]} ${k})`;
    const id = `kb-${(base + i * 60 - Date.UTC(2020, 0, 1) / 1000).toString(36).padStart(6, '0')}${(i % 1296).toString(36).padStart(2, '0')}zz`;
    const stamp = new Date((base + i * 60) * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const text = `---\nid: ${id}\ntitle: ${yamlString(title)}\ntype: factual_reference\ntags:\n  - ${note.folder}\ncreated: ${stamp}\nupdated: ${stamp}\n---\n\n${note.body.trim()}\n`;
    fs.writeFileSync(path.join(dir, 'entries', `${id}-${slug(title)}.md`), text);
  }
  const env = { ...process.env, GIT_AUTHOR_NAME: 'bench', GIT_AUTHOR_EMAIL: 'bench@example.com', GIT_COMMITTER_NAME: 'bench', GIT_COMMITTER_EMAIL: 'bench@example.com' };
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env });
  execFileSync('git', ['add', '-A'], { cwd: dir, env });
  execFileSync('git', ['commit', '-q', '-m', `replicated corpus: ${n} entries`], { cwd: dir, env });
  return dir;
}

/** A throwaway copy of a cached repo (cp -a keeps it fast), for benchmarks that write. */
export function copyRepo(src, dest) {
  fs.rmSync(dest, { recursive: true, force: true });
  execFileSync('cp', ['-a', src, dest]);
  return dest;
}
