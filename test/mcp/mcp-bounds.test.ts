/**
 * `git-kb mcp` bounds a message's size and keeps serving after a bad one (spec/mcp.md): a 10 MB garbage line, a
 * 10 MB `add` (answered with an error carrying its id) and a line that is not JSON, each followed by a valid call
 * that is answered. Driven as a process over raw stdio, since the SDK's client cannot send a broken line.
 */
import { spawn } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLI, kb, makeSandbox, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-mcpbounds-');
});
afterEach(() => sb.cleanup());

describe('git-kb mcp over raw stdio', () => {
  it('drops an over-long line with an error naming the limit, skips garbage, and answers the next calls', async () => {
    expect((await kb(sb, ['--data', sb.data, 'init'])).code).toBe(0);
    const child = spawn(process.execPath, [CLI, 'mcp', '--data', sb.data], { env: sb.env, stdio: ['pipe', 'pipe', 'pipe'] });
    const replies = new Map<unknown, Record<string, any>>();
    let buf = '';
    child.stdout.on('data', (d: Buffer) => {
      buf += d.toString('utf8');
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const msg = JSON.parse(buf.slice(0, nl)) as Record<string, any>;
        buf = buf.slice(nl + 1);
        replies.set(msg.id ?? `null-${replies.size}`, msg);
      }
    });
    const send = (o: unknown): boolean => child.stdin.write(`${JSON.stringify(o)}\n`);
    const answered = async (id: unknown): Promise<Record<string, any>> => {
      for (let i = 0; i < 600 && !replies.has(id); i++) await new Promise((r) => setTimeout(r, 50));
      expect(replies.has(id), `no answer to ${String(id)}`).toBe(true);
      return replies.get(id)!;
    };
    send({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bounds', version: '1' } } });
    await answered(1);
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    child.stdin.write(`${'x'.repeat(10 * 1024 * 1024)}\n`);
    send({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
    expect((await answered(2)).result.tools.length).toBeGreaterThan(5);
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'add', arguments: { type: 'decision', title: 'Too big', body: 'y'.repeat(10 * 1024 * 1024) } } });
    const big = await answered(3);
    expect(big.error.message).toMatch(/message of 10\.0 MB dropped: the limit is 9 MB/);
    child.stdin.write('this is not json\n');
    send({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'add', arguments: { type: 'decision', title: 'Small', body: 'fits' } } });
    expect((await answered(4)).result.isError).toBeFalsy();
    const nullIds = [...replies.keys()].filter((k) => typeof k === 'string' && k.startsWith('null-'));
    expect(nullIds.length).toBe(1); // the garbage line's drop notice; the non-JSON line gets none from the SDK
    child.stdin.end();
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
  }, 60_000);
});
