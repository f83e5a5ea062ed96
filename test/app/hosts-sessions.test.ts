/**
 * The host and session use cases called in process: outcomes that are not plain success are named in the
 * result (`exit`, an error code of EXIT_CODES) for the CLI to map, and the places they read (the transcripts
 * folder, the settings file) come from Settings, never from this process's env.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { readSettings, type Settings } from '../../src/adapters/config/settings.js';
import { readSessionState } from '../../src/adapters/store/session-state.js';
import { addHostFact, forbidPattern, hostStatus, loadHostFacts, registerHost } from '../../src/app/host.js';
import { installHooks, uninstallHooks } from '../../src/app/install.js';
import { catchUpSessions, listSessions } from '../../src/app/session.js';
import { expectCleanRepo, git, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
let settings: Settings;

beforeEach(() => {
  sb = makeSandbox('gkb-app-');
  settings = readSettings({ ...sb.env, GIT_KB_DATA: sb.data, CLAUDE_CONFIG_DIR: path.join(sb.root, 'claude') });
});
afterEach(() => sb.cleanup());

describe('hosts', () => {
  it('load names NOT_FOUND for an unknown host and FORBIDDEN_HOST for a forbidden one; status names INVALID_ENTRY', async () => {
    const fact = await addHostFact({ settings, key: 'web1', fact: 'nginx logs live in /var/log/nginx.' });
    expect(fact).toMatchObject({ host: 'web1', registered: true });
    const loaded = await loadHostFacts({ settings, key: 'web1' });
    expect(loaded).toMatchObject({ key: 'web1', status: 'loaded', facts: [{ id: fact.id, body: 'nginx logs live in /var/log/nginx.' }] });
    expect(loaded.exit).toBeUndefined();
    expect(await loadHostFacts({ settings, key: 'db9' })).toEqual({ key: 'db9', status: 'unknown', exit: 'NOT_FOUND' });
    await registerHost({ settings, key: 'vault', markers: ['vault.internal'], forbidden: true });
    expect(await loadHostFacts({ settings, key: 'vault' })).toEqual({ key: 'vault', status: 'forbidden', exit: 'FORBIDDEN_HOST' });
    await expectCleanRepo(sb.data);
    expect((await git(sb.data, ['log', '--format=%s'], sb.env)).trim().split('\n').slice(0, 2)).toEqual(['host vault: register (forbidden)', `host web1: add ${fact.id}: nginx logs live in /var/log/nginx. (new host)`]);
    expect((await hostStatus({ settings })).exit).toBeUndefined();
    fs.appendFileSync(path.join(sb.data, 'hosts.yaml'), 'bogus: [\n');
    const bad = await hostStatus({ settings });
    expect(bad).toMatchObject({ valid: false, exit: 'INVALID_ENTRY' });
    expect(bad.problems[0]).toMatch(/^hosts\.yaml:\d+: .+ \[[a-z-]+\]$/);
  });
});

describe('an edit of a large hosts.yaml', () => {
  // NOTE: no timings (bench/RESULTS.md, "Hostile content at scale"). Each parse of hosts.yaml costs about a second
  // at 32,000 hosts; register, forbid and add each parsed the text three or four times.
  const fleet = (n: number): string => {
    let text = '# the fleet\nhosts:\n';
    for (let i = 0; i < n; i++) text += `  h${String(i).padStart(5, '0')}: {description: host number ${i}}\n`;
    return text;
  };
  const commitHosts = async (text: string): Promise<string> => {
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), text);
    await git(sb.data, ['commit', '-qam', 'a hand-written fleet'], sb.env);
    return (await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim();
  };
  /** The parses of hosts.yaml's text (before or after the edit: both hold host h01999) while `fn` runs. */
  const parsesDuring = async (fn: () => Promise<unknown>): Promise<number> => {
    const spy = vi.spyOn(YAML, 'parseDocument');
    try {
      await fn();
      return spy.mock.calls.filter((c) => String(c[0]).includes('h01999:')).length;
    } finally {
      spy.mockRestore();
    }
  };

  it('register, forbid and add (of a new host) check the text once before and once after the edit', async () => {
    await registerHost({ settings, key: 'seed' });
    await commitHosts(fleet(2000));
    expect(await parsesDuring(() => registerHost({ settings, key: 'newbox', markers: ['newbox.example.org'] }))).toBe(2);
    expect(await parsesDuring(() => registerHost({ settings, key: 'h00007', aliases: ['seventh'] }))).toBe(2);
    expect(await parsesDuring(() => forbidPattern({ settings, pattern: 'secret-lab' }))).toBe(2);
    expect(await parsesDuring(() => addHostFact({ settings, key: 'otherbox', fact: 'Backups run at 02:00.' }))).toBe(2);
    const text = fs.readFileSync(path.join(sb.data, 'hosts.yaml'), 'utf8');
    expect(text.startsWith('# the fleet\nhosts:\n  h00000: { description: host number 0 }\n')).toBe(true);
    expect(text).toContain('  h00007: { description: host number 7, aliases: [ seventh ] }\n');
    expect(text.endsWith('  newbox:\n    markers:\n      - newbox.example.org\n  otherbox:\nforbidden_patterns:\n  - secret-lab\n')).toBe(true);
    await expectCleanRepo(sb.data);
  });

  it('a repeated host key: register, forbid and add refuse with the same message as ever, and write nothing', async () => {
    await registerHost({ settings, key: 'seed' });
    const head = await commitHosts(`${fleet(2000)}  h00007: {description: again}\n`);
    const message = 'hosts.yaml would be invalid, nothing written:\nhosts.yaml:2003: malformed YAML: Map keys must be unique [hosts-yaml]';
    for (const edit of [
      () => registerHost({ settings, key: 'newbox', markers: ['newbox.example.org'] }),
      () => forbidPattern({ settings, pattern: 'secret-lab' }),
      () => addHostFact({ settings, key: 'newbox', fact: 'Backups run at 02:00.' }),
    ]) {
      await expect(edit()).rejects.toMatchObject({ code: 'INVALID_ENTRY', message, data: { file: 'hosts.yaml', problems: [{ rule: 'hosts-yaml', line: 2003 }] } });
    }
    expect((await git(sb.data, ['rev-parse', 'HEAD'], sb.env)).trim()).toBe(head);
    await expectCleanRepo(sb.data);
  });
});

describe('sessions', () => {
  it('catch-up reads transcripts from the Claude config folder of the settings, and records their state', async () => {
    const id = '3f1c9a2e-7b4d-4e8a-9c61-0d2f5b7e8a14';
    const project = path.join(settings.claudeConfigDir, 'projects', '-home-dana-src-invoice-api');
    fs.mkdirSync(project, { recursive: true });
    fs.copyFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'transcripts', 'coding-session.jsonl'), path.join(project, `${id}.jsonl`));
    await registerHost({ settings, key: 'web1', markers: ['web1.example.com'] });
    const first = await catchUpSessions({ settings });
    expect(first).toMatchObject({ looked: 1, written: [expect.stringMatching(/^kb-/)], failed: [] });
    expect(readSessionState(sb.data, id)).toMatchObject({ sessionId: id, outcome: 'written', id: first.written[0] });
    const again = await catchUpSessions({ settings });
    expect(again).toMatchObject({ looked: 0, current: 1, written: [] });
    expect((await listSessions({ settings })).map((s) => s.session_id)).toEqual([id]);
    await expectCleanRepo(sb.data);
  });
});

describe('install', () => {
  it('wires the hooks into the settings file under the home of the settings, and uninstall gives the file back', async () => {
    const file = path.join(settings.home, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '{\n  "model": "sonnet"\n}\n');
    const dry = await installHooks({ home: settings.home, dryRun: true });
    expect(dry).toMatchObject({ action: 'install', settings: file, changed: true, dryRun: true });
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "model": "sonnet"\n}\n');
    expect((await installHooks({ home: settings.home })).events.length).toBeGreaterThan(0);
    expect(fs.readFileSync(file, 'utf8')).toContain('git-kb-hook');
    expect(await uninstallHooks({ home: settings.home })).toMatchObject({ changed: true });
    expect(fs.readFileSync(file, 'utf8')).toBe('{\n  "model": "sonnet"\n}\n');
  });
});
