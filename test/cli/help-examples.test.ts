/**
 * Every command's --help ends with an Examples section (spec/cli.md, "Help"), run through the real CLI over the
 * whole command tree, and every flag an example uses is one that command's help lists.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { kb, makeSandbox } from '../helpers/cli.js';

const sb = makeSandbox();
afterAll(() => sb.cleanup());

async function help(path: string[]): Promise<string> {
  const r = await kb(sb, [...path, '--help'], { env: { COLUMNS: '200' } });
  expect(r.code, `${path.join(' ')} --help: ${r.stderr}`).toBe(0);
  return r.stdout;
}

function subcommands(text: string): string[] {
  const i = text.indexOf('\nCommands:\n');
  if (i < 0) return [];
  return text
    .slice(i + 11)
    .split('\n')
    .map((l) => /^ {2}([a-z][a-z-]*)\b/.exec(l)?.[1])
    .filter((n): n is string => n !== undefined && n !== 'help');
}

describe('--help', () => {
  it('has examples for the program, every verb and every subcommand, using only flags the command takes', async () => {
    const top = await help([]);
    const paths: string[][] = [[]];
    for (const verb of subcommands(top)) {
      paths.push([verb]);
      for (const sub of subcommands(await help([verb]))) paths.push([verb, sub]);
    }
    expect(paths.length).toBeGreaterThan(40);
    const missing: string[] = [];
    for (const p of paths) {
      const text = await help(p);
      const m = /\nExamples:\n((?: {2}\$ .+\n?)+)$/.exec(text);
      if (!m) {
        missing.push(p.join(' ') || '(git-kb)');
        continue;
      }
      const lines = m[1]!.trim().split('\n').map((l) => l.replace(/^\s*\$ /, ''));
      expect(lines.length, p.join(' ')).toBeLessThanOrEqual(3);
      if (p.length === 0) continue;
      for (const line of lines) {
        const call = line.slice(line.indexOf('git-kb '));
        if (!call.startsWith(`git-kb ${p.join(' ')}`)) continue;
        for (const flag of call.match(/(?<=\s)--[a-z][a-z-]*/g) ?? []) expect(text, `${line}: ${flag}`).toContain(`${flag}`);
      }
    }
    expect(missing).toEqual([]);
  }, 120_000);
});
