/**
 * Without the plugin system: `git-kb install` wires the hooks of this checkout into $HOME/.claude/settings.json,
 * the real Claude Code CLI runs them (the kernel and a pointer reach the model), and `git-kb uninstall` gives
 * back the user's settings file byte for byte.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kb, ROOT } from '../helpers/cli.js';
import type { ModelApi } from '../helpers/model-api.js';
import { contextsOf, converse, KERNEL_BODY, makeClaudeSandbox, POSTGRES_PROMPT, prompt, removeSandbox, seedDataRepo, startStandIn, type ClaudeSandbox, type Seeded } from './claude-support.js';

let api: ModelApi;
let sb: ClaudeSandbox;
let seeded: Seeded;
beforeAll(async () => {
  api = await startStandIn();
  sb = makeClaudeSandbox(api, 'gkb-cc-settings-');
  seeded = await seedDataRepo(sb);
}, 60_000);
afterAll(async () => {
  await api?.stop();
  await removeSandbox(sb);
});

/** A user's settings file, with their own hook and odd spacing that must survive. */
const ORIGINAL = `{
  "permissions": { "allow": ["Bash(ls *)"] },
  "hooks": {
    "Stop": [ { "hooks": [ { "type": "command", "command": "true" } ] } ]
  },
  "theme":   "dark"
}
`;

describe('git-kb install into settings.json', () => {
  it('wires hooks the real CLI runs, and uninstall restores the file byte for byte', async () => {
    const settings = path.join(sb.home, '.claude', 'settings.json');
    fs.mkdirSync(path.dirname(settings), { recursive: true });
    fs.writeFileSync(settings, ORIGINAL);

    const install = await kb(sb, ['install', '--json']);
    expect(install.code, install.stderr).toBe(0);
    const wired = fs.readFileSync(settings, 'utf8');
    expect(wired).toContain(path.join(ROOT, 'bin', 'git-kb-hook'));
    expect(wired).toContain('"command": "true"');

    converse(api, ['Lower the scale factor.']);
    api.reset();
    const r = await prompt(sb, POSTGRES_PROMPT);
    expect(r.json.result).toBe('Lower the scale factor.');
    const contexts = contextsOf(api.mainRequests()[0]!);
    expect(contexts).toHaveLength(1);
    expect(contexts[0]).toContain(KERNEL_BODY);
    expect(contexts[0]).toContain(`- ${seeded.notes.postgres} — `);

    const uninstall = await kb(sb, ['uninstall', '--json']);
    expect(uninstall.code, uninstall.stderr).toBe(0);
    expect(fs.readFileSync(settings, 'utf8')).toBe(ORIGINAL);
  }, 60_000);
});
