/**
 * Contract: `init` makes a data repo usable: it creates a new one, adopts an existing git clone as it is (nothing
 * converted), or clones one (`--clone URL`), and can set the remote. It records the repo as the default (the
 * config's `data_dir`) only when asked (`makeDefault`, the CLI's `--default`): `git-kb --data DIR init` never
 * changes which repo the other commands use.
 */
import { initCommand } from '../adapters/system/init-hint.js';
import fs from 'node:fs';
import path from 'node:path';
import { configRemote, readConfig, readConfigFile, resolveDataDir, writableConfigFile } from '../adapters/config/config.js';
import { KbError } from '../core/errors.js';
import { writeFileAtomic } from '../adapters/store/fsutil.js';
import { headOid, headRef, refOid, remoteUrl, setHeadBranch, setRemote } from '../adapters/git/git.js';
import { cloneRepo, defaultBranch, remoteHeads, transportFor } from '../adapters/git/transport.js';
import { redactUrl } from '../adapters/git/remote.js';
import { dataRepoExists, ENTRY_ROOTS, looksLikeDataRepo, projectFiles, refuseNonFolder } from '../adapters/store/layout.js';
import { ensureDataRepo, writeManifest } from '../adapters/write/data-repo.js';
import { processAlive } from '../adapters/system/pid.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { remoteSettings } from './sync-settings.js';

export interface InitOptions extends RepoOptions {
  clone?: string;
  remote?: string;
  /** Record this repo as the default data repo in the config. */
  makeDefault?: boolean;
  /** Adopt a git repo even when it is a code project (projectFiles). */
  force?: boolean;
}

export interface InitResult {
  data_dir: string;
  action: 'created' | 'adopted' | 'cloned' | 'existing';
  config_file?: string;
  remote?: string;
  entries: number;
  /** Remarks, e.g. that the system git did the clone. */
  notes?: string[];
}

function countEntries(dir: string): number {
  let n = 0;
  const walk = (d: string): void => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(path.join(d, e.name));
      else if (e.name.endsWith('.md')) n++;
    }
  };
  for (const root of ENTRY_ROOTS) if (fs.existsSync(path.join(dir, root))) walk(path.join(dir, root));
  return n;
}

/** Initialises (or adopts, or clones) the data repo. */
export async function initDataRepo(options: InitOptions): Promise<InitResult> {
  const resolved = resolveDataDir({ data: options.data, settings: options.settings });
  const dir = resolved.dir;
  refuseNonFolder(dir);
  let action: InitResult['action'];
  const notes: string[] = [];
  const identity = { identity: options.settings };
  if (options.clone && dataRepoExists(dir) && looksLikeDataRepo(dir) && (await remoteUrl(dir)) === options.clone) {
    // The same clone, made already (the command run again, after it finished or was killed when it had): done.
    action = 'existing';
  } else if (options.clone) {
    if (fs.existsSync(dir) && fs.readdirSync(dir).length > 0) {
      if (dataRepoExists(dir)) throw new KbError('CONFLICT', `${dir} already holds a data repo (cloned from elsewhere); pass --data DIR to clone elsewhere`);
      throw new KbError('CONFLICT', `${dir} is not empty; pass --data DIR to clone into an empty or new directory`);
    }
    // NOTE: the clone is made in a hidden sibling folder and renamed into place whole, so a killed clone leaves no
    // half-made repo at DIR (which every later command, and init again, would refuse): running it again just works.
    const tmp = cloneTemp(dir);
    try {
      const cloned = await cloneRepo({ url: options.clone, dir: tmp, settings: remoteSettings(options.settings, readConfig(options.settings)) });
      notes.push(...cloned.notes);
      // An empty remote gives an empty clone: give it the manifest, as a new data repo has (pushed by the next sync).
      if (!(await headOid(tmp))) {
        await writeManifest(tmp, 'git-kb: create data repo', identity);
        notes.push('the remote was empty: created the data repo; "git-kb sync" pushes it');
      } else if (!looksLikeDataRepo(tmp)) {
        refuseProject(tmp, options.clone, options.force, 'clone a repo of notes, or run init --clone with --force to adopt this one anyway');
        await writeManifest(tmp, 'git-kb: adopt this repository as a data repo', identity);
      }
      fs.renameSync(tmp, dir); // an empty DIR is replaced; a DIR filled meanwhile makes this fail, and nothing is lost
    } finally {
      fs.rmSync(tmp, { recursive: true, force: true });
    }
    action = 'cloned';
  } else if (dataRepoExists(dir)) {
    action = resolved.source === 'flag' ? 'adopted' : 'existing';
    await followRemoteBranch(dir, options, notes);
    // NOTE: adopting a git repo that has no kb.json (entry-like folders or not) marks it as a data repo with one
    // commit adding kb.json; a v1 repo (kb.json with next_id) is left exactly as it is.
    if (!looksLikeDataRepo(dir)) {
      refuseProject(dir, dir, options.force, 'give the data repo a folder of its own (--data DIR), or run init with --force to adopt this one anyway');
      await writeManifest(dir, 'git-kb: adopt this repository as a data repo', identity);
    }
  } else {
    await ensureDataRepo(dir, identity);
    action = 'created';
  }
  repoForRead({ data: dir, settings: options.settings });
  if (options.remote) {
    const before = await remoteUrl(dir);
    if (before && before !== options.remote) {
      notes.push(`origin was ${redactUrl(before)}; it is now ${redactUrl(options.remote)}: the next "git-kb sync" merges with what is there and pushes every entry to it ("${initCommand(dir)} --remote URL" puts back the old one)`);
    }
    await setRemote(dir, options.remote);
  }
  let configFile: string | undefined;
  // The repo commands use with neither --data nor GIT_KB_DATA (the embedded default needs no config line).
  const current = resolveDataDir({ settings: { ...options.settings, dataDir: undefined } }).dir;
  if (options.makeDefault && path.resolve(current) !== path.resolve(dir)) {
    configFile = writableConfigFile(options.settings);
    const cfg = readConfigFile(configFile) ?? {};
    cfg.data_dir = dir;
    writeFileAtomic(configFile, `${JSON.stringify(cfg, null, 2)}\n`);
  }
  return { data_dir: dir, action, config_file: configFile, remote: remoteShown(options.remote ?? options.clone), entries: countEntries(dir), ...(notes.length ? { notes } : {}) };
}

/**
 * Adopting a repo whose branch has no commit yet (`git init` made it, or `git clone` of a remote whose HEAD names a
 * branch it lacks) with a remote known (`--remote`, else `origin`, else the config's `remote`): HEAD is pointed at
 * the remote's own branch (defaultBranch), so this machine syncs the branch the others do and sync never has a
 * second branch to refuse (spec/sync.md, "One branch"). Only a branch with no commit is renamed, and only to a
 * name no local branch has; the remote is asked once, and a remote that cannot be asked leaves the branch as it is,
 * with a note.
 */
async function followRemoteBranch(dir: string, options: InitOptions, notes: string[]): Promise<void> {
  const ref = headRef(dir);
  if (!ref?.startsWith('refs/heads/') || (await headOid(dir))) return;
  const url = options.remote ?? (await remoteUrl(dir)) ?? configRemote(readConfig(options.settings));
  if (!url) return;
  const current = ref.slice('refs/heads/'.length);
  const shown = redactUrl(url);
  let branches: string[];
  let theirs: string | undefined;
  try {
    const settings = remoteSettings(options.settings, readConfig(options.settings));
    // NOTE: the URL itself as the remote name for the system git: `origin` may not be set yet (or set to another).
    const heads = await remoteHeads({ dir, remote: url, url, branch: current, transport: transportFor(url, settings), settings, timeoutMs: 15_000 });
    branches = heads.branches;
    theirs = defaultBranch(heads.branches, heads.head);
  } catch (err) {
    const why = (err as Error).message.replace(/;\s*local commits are kept\.?$/, '');
    notes.push(`could not ask ${shown} which branch it syncs (${why}); the branch stays "${current}": if the remote has another, "git-kb sync" refuses and says how to fix it`);
    return;
  }
  if (!branches.length || branches.includes(current)) return;
  if (!theirs) {
    notes.push(`${shown} has the branches ${branches.map((b) => `"${b}"`).join(', ')} and none is its default: the branch stays "${current}", and "git-kb sync" refuses until it is renamed to one of them (git -C ${dir} branch -m ${current} NAME)`);
    return;
  }
  if (await refOid(dir, `refs/heads/${theirs}`)) return; // a local branch of that name: not git-kb's to touch
  try {
    setHeadBranch(dir, theirs);
  } catch {
    return; // a branch name git-kb will not write; sync's refusal names it
  }
  notes.push(`the repo had no commit yet: its branch is now "${theirs}" (was "${current}"), the branch ${shown} has, so every machine syncs the same branch`);
}

/**
 * Refuses (CONFLICT) to adopt the git repo at `dir`, named `shown`, when it is a code project (projectFiles) and not
 * `force`: adopting it would commit kb.json, and later every note, into the project's history (and sync would push
 * them to its remote). `fix` says what to do instead.
 */
function refuseProject(dir: string, shown: string, force: boolean | undefined, fix: string): void {
  const project = projectFiles(dir);
  if (project.length > 0 && !force) {
    throw new KbError('CONFLICT', `${shown} is a code project (it has ${project.join(', ')}), not a notes repo: adopting it would commit kb.json and your notes into its history; ${fix}`, { files: project });
  }
}

/**
 * A fresh hidden sibling of `dir` to clone into (`.<name>.clone-<pid>-<time>`), after removing those that killed
 * clones left (their process is gone).
 */
function cloneTemp(dir: string): string {
  const parent = path.dirname(path.resolve(dir));
  const prefix = `.${path.basename(path.resolve(dir))}.clone-`;
  fs.mkdirSync(parent, { recursive: true });
  for (const n of fs.readdirSync(parent)) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(n.slice(prefix.length).split('-')[0]);
    if (!processAlive(pid)) fs.rmSync(path.join(parent, n), { recursive: true, force: true });
  }
  return path.join(parent, `${prefix}${process.pid}-${Date.now().toString(36)}`);
}

/** A remote URL as results show it: any password or token in it removed. */
function remoteShown(url: string | undefined): string | undefined {
  return url === undefined ? undefined : redactUrl(url);
}
