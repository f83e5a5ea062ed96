/**
 * Contract: who a commit is by, found as git finds it: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL (handed in by the
 * caller, who read them with the rest of the settings), else `user.name` and `user.email` of the repo's config,
 * else of the global config (~/.gitconfig, then $XDG_CONFIG_HOME/git/config), else git-kb@<host>. Reads no
 * environment variable itself.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface Author {
  name: string;
  email: string;
}

/** Where the author comes from: the fields of the same names in Settings (src/adapters/config/settings.ts). */
export interface CommitIdentity {
  /** GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL; used when both are set. */
  authorName?: string;
  authorEmail?: string;
  /** The home folder holding .gitconfig (default: the OS's idea of it). */
  home?: string;
  /** XDG_CONFIG_HOME (default: <home>/.config). */
  xdgConfigHome?: string;
}

/** The `[user]` name and email of a git config file, when it sets both. */
function userOf(file: string): Author | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const section = /^\s*\[user\]([\s\S]*?)(?=^\s*\[|$(?![\s\S]))/m.exec(text)?.[1] ?? '';
  const name = /^\s*name\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
  const email = /^\s*email\s*=\s*(.+)$/m.exec(section)?.[1]?.trim();
  return name && email ? { name: name.replace(/^"|"$/g, ''), email: email.replace(/^"|"$/g, '') } : undefined;
}

/** The commit author of the repo at `dir` (see the module contract). */
export function resolveAuthor(dir: string, identity: CommitIdentity = {}): Author {
  if (identity.authorName && identity.authorEmail) return { name: identity.authorName, email: identity.authorEmail };
  const home = identity.home || os.homedir();
  const files = [path.join(dir, '.git', 'config'), path.join(home, '.gitconfig'), path.join(identity.xdgConfigHome || path.join(home, '.config'), 'git', 'config')];
  for (const file of files) {
    const found = userOf(file);
    if (found) return found;
  }
  return { name: 'git-kb', email: `git-kb@${os.hostname()}` };
}
