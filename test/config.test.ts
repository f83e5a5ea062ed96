/**
 * Data repo resolution as a pure function of flags, settings (parsed from the env) and config files: --data, GIT_KB_DATA, then the data_dir
 * of $CLAUDE_PLUGIN_DATA/kb-config.json, ~/.claude/kb-config.json, $XDG_CONFIG_HOME/git-kb/config.json, then
 * ~/.git-kb/data.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { configFiles, defaultDataDir, readConfig, readConfigFile, resolveDataDir, writableConfigFile } from '../src/adapters/config/config.js';
import { readSettings } from '../src/adapters/config/settings.js';
import { KbError } from '../src/core/errors.js';

let root: string;
let env: NodeJS.ProcessEnv;
let files: { plugin: string; claude: string; xdg: string };

function write(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
}

beforeEach(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-config-'));
  const home = path.join(root, 'home');
  env = { HOME: home, CLAUDE_PLUGIN_DATA: path.join(root, 'plugin'), XDG_CONFIG_HOME: path.join(root, 'xdg') };
  files = { plugin: path.join(root, 'plugin', 'kb-config.json'), claude: path.join(home, '.claude', 'kb-config.json'), xdg: path.join(root, 'xdg', 'git-kb', 'config.json') };
});
afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

describe('resolveDataDir', () => {
  it('takes the first that applies: flag, env, plugin config, claude config, xdg config, default', () => {
    write(files.plugin, { data_dir: '/p' });
    write(files.claude, { data_dir: '/c' });
    write(files.xdg, { data_dir: '/x' });
    const e = { ...env, GIT_KB_DATA: '/e' };
    expect(resolveDataDir({ data: '/f', settings: readSettings(e) })).toEqual({ dir: '/f', source: 'flag' });
    expect(resolveDataDir({ settings: readSettings(e) })).toEqual({ dir: '/e', source: 'env' });
    expect(resolveDataDir({ settings: readSettings(env) })).toEqual({ dir: '/p', source: 'config', configFile: files.plugin });
    expect(resolveDataDir({ settings: readSettings({ ...env, CLAUDE_PLUGIN_DATA: undefined }) })).toEqual({ dir: '/c', source: 'config', configFile: files.claude });
    fs.rmSync(files.claude);
    expect(resolveDataDir({ settings: readSettings({ ...env, CLAUDE_PLUGIN_DATA: undefined }) })).toEqual({ dir: '/x', source: 'config', configFile: files.xdg });
    fs.rmSync(files.xdg);
    expect(resolveDataDir({ settings: readSettings({ ...env, CLAUDE_PLUGIN_DATA: undefined }) })).toEqual({ dir: path.join(env.HOME!, '.git-kb', 'data'), source: 'default' });
  });

  it('resolves relative paths against the cwd (flag, env) or the config file, and ~ against HOME', () => {
    expect(resolveDataDir({ data: 'kb', settings: readSettings(env), cwd: '/work' }).dir).toBe('/work/kb');
    expect(resolveDataDir({ data: '~/kb', settings: readSettings(env) }).dir).toBe(path.join(env.HOME!, 'kb'));
    expect(resolveDataDir({ settings: readSettings({ ...env, GIT_KB_DATA: '~' }) }).dir).toBe(env.HOME);
    write(files.plugin, { data_dir: '../data-beside' });
    expect(resolveDataDir({ settings: readSettings(env) }).dir).toBe(path.join(root, 'data-beside'));
  });

  it('passes over config files without a data_dir, and names a malformed one', () => {
    write(files.plugin, { remote: 'https://example.com/kb.git' });
    write(files.claude, { data_dir: '' });
    write(files.xdg, { data_dir: '/x' });
    expect(resolveDataDir({ settings: readSettings(env) }).dir).toBe('/x');
    write(files.claude, '{ "data_dir": ');
    expect(() => resolveDataDir({ settings: readSettings(env) })).toThrow(KbError);
    try {
      resolveDataDir({ settings: readSettings(env) });
    } catch (err) {
      expect((err as KbError).code).toBe('USAGE');
      expect((err as KbError).message).toContain(files.claude);
    }
    write(files.claude, '[1, 2]');
    expect(() => readConfigFile(files.claude)).toThrow(/not valid JSON/);
    expect(readConfigFile(path.join(root, 'missing.json'))).toBeUndefined();
  });
});

describe('config files', () => {
  it('are consulted in order, with XDG defaulting to ~/.config', () => {
    expect(configFiles(readSettings(env))).toEqual([files.plugin, files.claude, files.xdg]);
    expect(configFiles(readSettings({ HOME: '/h' }))).toEqual(['/h/.claude/kb-config.json', '/h/.config/git-kb/config.json']);
    expect(defaultDataDir(readSettings({ HOME: '/h' }))).toBe('/h/.git-kb/data');
  });

  it('merge with the earlier file winning', () => {
    write(files.plugin, { remote: 'https://plugin', token: 't1' });
    write(files.xdg, { remote: 'https://xdg', auto_sync: true });
    expect(readConfig(readSettings(env))).toEqual({ remote: 'https://plugin', token: 't1', auto_sync: true });
  });

  it('init records into the first that exists, else the plugin file, else the XDG one', () => {
    expect(writableConfigFile(readSettings(env))).toBe(files.plugin);
    expect(writableConfigFile(readSettings({ ...env, CLAUDE_PLUGIN_DATA: undefined }))).toBe(files.xdg);
    write(files.claude, {});
    expect(writableConfigFile(readSettings(env))).toBe(files.claude);
  });
});
