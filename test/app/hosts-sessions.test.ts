/**
 * The host and session use cases called in process: outcomes that are not plain success are named in the
 * result (`exit`, an error code of EXIT_CODES) for the CLI to map, and the places they read (the transcripts
 * folder, the settings file) come from Settings, never from this process's env.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readSettings, type Settings } from '../../src/adapters/config/settings.js';
import { readSessionState } from '../../src/adapters/store/session-state.js';
import { addHostFact, hostStatus, loadHostFacts, registerHost } from '../../src/app/host.js';
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
