/**
 * main declares only the verb an argv runs (src/cli/main.ts, verbOf): the others are not declared at all. The
 * whole tree is still built for help, for `help VERB`, and for a verb it does not know (so commander suggests).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verbOf } from '../../src/cli/main.js';
import { kb, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeAll(() => {
  sb = makeSandbox();
});
afterAll(() => sb.cleanup());

describe('the verb of an argv', () => {
  it('is the first word that is not a global option or the value of --data', () => {
    expect(verbOf(['get', 'kb-1'])).toBe('get');
    expect(verbOf(['--json', '--data', '/x/get', 'search', 'q'])).toBe('search');
    expect(verbOf(['--data=/x', 'host', 'list'])).toBe('host');
    expect(verbOf(['--help'])).toBeUndefined();
    expect(verbOf(['help', 'get'])).toBeUndefined();
    expect(verbOf(['completion', 'bash'])).toBeUndefined();
    expect(verbOf(['--', 'get'])).toBeUndefined();
    expect(verbOf([])).toBeUndefined();
  });
});

describe('a tree of one verb', () => {
  it('still suggests the verb for a typo, prints each verb in the help, and a verb its own flags', async () => {
    const typo = await kb(sb, ['gett']);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/Did you mean get\?/);
    const help = await kb(sb, ['--help']);
    for (const v of ['init', 'add', 'get', 'search', 'sync', 'host', 'session', 'mcp']) expect(help.stdout).toMatch(new RegExp(`^  ${v}\\b`, 'm'));
    const getHelp = await kb(sb, ['get', '--help']);
    expect(getHelp.code).toBe(0);
    expect(getHelp.stdout).toMatch(/Usage: git-kb get/);
    const sub = await kb(sb, ['--data', sb.data, 'host', 'list', '--json']);
    expect(sub.stderr).not.toMatch(/unknown command/);
  });
});
