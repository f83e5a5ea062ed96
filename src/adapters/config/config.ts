/**
 * Contract: data repo resolution of spec/cli.md, "Data repo": `--data`, then `GIT_KB_DATA`, then the `data_dir`
 * of the first config file that names one ($CLAUDE_PLUGIN_DATA/kb-config.json, ~/.claude/kb-config.json,
 * $XDG_CONFIG_HOME/git-kb/config.json), else the embedded default ~/.git-kb/data. Reads only small files, and
 * never the environment: the variables arrive parsed, as the fields of Settings that name these places.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KbError } from '../../core/errors.js';
import type { Settings } from './settings.js';

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

/** The remote a config file names (`remote`), the one sync uses and records as origin when the repo has none. */
export function configRemote(cfg: KbConfig): string | undefined {
  return typeof cfg.remote === 'string' && cfg.remote ? cfg.remote : undefined;
}

/** The fields of Settings that locate the config files and the data repo. */
export type ConfigSettings = Pick<Settings, 'home' | 'xdgConfigHome' | 'pluginData' | 'dataDir'>;

/** The config files in the order they are consulted. */
export function configFiles(settings: ConfigSettings): string[] {
  const files: string[] = [];
  if (settings.pluginData) files.push(path.join(settings.pluginData, 'kb-config.json'));
  files.push(path.join(settings.home, '.claude', 'kb-config.json'));
  files.push(path.join(settings.xdgConfigHome, 'git-kb', 'config.json'));
  return files;
}

/** Reads a config file; a missing file is empty, a malformed one is a clear error naming it. */
export function readConfigFile(file: string): KbConfig | undefined {
  let text: string;
  try {
    // NOTE: a stat first: a FIFO or a device named like the config file would block a read for ever.
    const st = fs.statSync(file);
    if (!st.isFile()) throw new KbError('USAGE', `config file ${file} is not a regular file`, { file });
    if (st.size > 1024 * 1024) throw new KbError('USAGE', `config file ${file} is over 1 MB`, { file });
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if (err instanceof KbError) throw err;
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

function expandHome(p: string, home: string): string {
  return p === '~' || p.startsWith('~/') ? path.join(home, p.slice(1)) : p;
}

/** The reverse of expandHome, for messages: `dir` with the home folder written as `~` (`~/.git-kb/data`). */
export function homeShort(dir: string, home: string): string {
  const h = home.replace(/\/+$/, '');
  return h && (dir === h || dir.startsWith(`${h}/`)) ? `~${dir.slice(h.length)}` : dir;
}

/** Resolves the data repo directory (it may not exist yet). */
export function resolveDataDir(options: { data?: string; settings: ConfigSettings; cwd?: string }): ResolvedData {
  const { settings } = options;
  const cwd = options.cwd ?? process.cwd();
  if (options.data) return { dir: path.resolve(cwd, expandHome(options.data, settings.home)), source: 'flag' };
  if (settings.dataDir) return { dir: path.resolve(cwd, expandHome(settings.dataDir, settings.home)), source: 'env' };
  for (const file of configFiles(settings)) {
    const cfg = readConfigFile(file);
    if (cfg && typeof cfg.data_dir === 'string' && cfg.data_dir) {
      return { dir: path.resolve(path.dirname(file), expandHome(cfg.data_dir, settings.home)), source: 'config', configFile: file };
    }
  }
  return { dir: defaultDataDir(settings), source: 'default' };
}

/** git-kb's own folder in the user's home: the default data repo, the transcript archive, the hooks' small state. */
export function gitKbHome(settings: Pick<Settings, 'home'>): string {
  return path.join(settings.home, '.git-kb');
}

/** The embedded default data repo, created on first write. */
export function defaultDataDir(settings: Pick<Settings, 'home'>): string {
  return path.join(gitKbHome(settings), 'data');
}

/** The merged settings of every config file (earlier files win), for remote, token and auto-sync. */
export function readConfig(settings: ConfigSettings): KbConfig {
  const merged: KbConfig = {};
  for (const file of configFiles(settings).reverse()) Object.assign(merged, readConfigFile(file) ?? {});
  return merged;
}

/** The config file `init` records the data repo in: the first that exists, else the plugin's, else ours. */
export function writableConfigFile(settings: ConfigSettings): string {
  const files = configFiles(settings);
  return files.find((f) => fs.existsSync(f)) ?? (settings.pluginData ? files[0]! : files[files.length - 1]!);
}
