/**
 * Contract: data repo resolution of spec/cli.md, "Data repo": `--data`, then `GIT_KB_DATA`, then the `data_dir`
 * of the first config file that names one ($CLAUDE_PLUGIN_DATA/kb-config.json, ~/.claude/kb-config.json,
 * $XDG_CONFIG_HOME/git-kb/config.json), else the embedded default ~/.git-kb/data. Reads only small files.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { KbError } from '../../core/errors.js';

/** Where the data repo came from, for `status` and error messages. */
export type DataSource = 'flag' | 'env' | 'config' | 'default';

export interface ResolvedData {
  dir: string;
  source: DataSource;
  /** The config file that named it, when source is "config". */
  configFile?: string;
}

/** The settings git-kb reads from a config file (all optional). */
export interface KbConfig {
  data_dir?: string;
  remote?: string;
  token?: string;
  auto_sync?: boolean;
  [key: string]: unknown;
}

function home(env: NodeJS.ProcessEnv): string {
  return env.HOME || os.homedir();
}

/** The config files in the order they are consulted. */
export function configFiles(env: NodeJS.ProcessEnv = process.env): string[] {
  const files: string[] = [];
  if (env.CLAUDE_PLUGIN_DATA) files.push(path.join(env.CLAUDE_PLUGIN_DATA, 'kb-config.json'));
  files.push(path.join(home(env), '.claude', 'kb-config.json'));
  const xdg = env.XDG_CONFIG_HOME || path.join(home(env), '.config');
  files.push(path.join(xdg, 'git-kb', 'config.json'));
  return files;
}

/** Reads a config file; a missing file is empty, a malformed one is a clear error naming it. */
export function readConfigFile(file: string): KbConfig | undefined {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed as KbConfig;
  } catch (err) {
    throw new KbError('USAGE', `config file ${file} is not valid JSON (${(err as Error).message}); fix or remove it`, { file });
  }
}

function expandHome(p: string, env: NodeJS.ProcessEnv): string {
  return p === '~' || p.startsWith('~/') ? path.join(home(env), p.slice(1)) : p;
}

/** Resolves the data repo directory (it may not exist yet). */
export function resolveDataDir(options: { data?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): ResolvedData {
  const env = options.env ?? process.env;
  const cwd = options.cwd ?? process.cwd();
  if (options.data) return { dir: path.resolve(cwd, expandHome(options.data, env)), source: 'flag' };
  if (env.GIT_KB_DATA) return { dir: path.resolve(cwd, expandHome(env.GIT_KB_DATA, env)), source: 'env' };
  for (const file of configFiles(env)) {
    const cfg = readConfigFile(file);
    if (cfg && typeof cfg.data_dir === 'string' && cfg.data_dir) {
      return { dir: path.resolve(path.dirname(file), expandHome(cfg.data_dir, env)), source: 'config', configFile: file };
    }
  }
  return { dir: defaultDataDir(env), source: 'default' };
}

/** The embedded default data repo, created on first write. */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  return path.join(home(env), '.git-kb', 'data');
}

/** The merged settings of every config file (earlier files win), for remote, token and auto-sync. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): KbConfig {
  const merged: KbConfig = {};
  for (const file of configFiles(env).reverse()) Object.assign(merged, readConfigFile(file) ?? {});
  return merged;
}

/** The config file `init` records the data repo in: the first that exists, else the plugin's, else ours. */
export function writableConfigFile(env: NodeJS.ProcessEnv = process.env): string {
  const files = configFiles(env);
  return files.find((f) => fs.existsSync(f)) ?? (env.CLAUDE_PLUGIN_DATA ? files[0]! : files[files.length - 1]!);
}
