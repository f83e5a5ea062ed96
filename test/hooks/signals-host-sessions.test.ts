/**
 * The prompt hook's host and recent-sessions signals, run through the exact UserPromptSubmit command of
 * hooks/hooks.json with JSON on stdin: a marker in a prompt points to the host's facts (never a forbidden host's),
 * and the first prompt of a session in a directory with earlier summaries lists them, the second does not.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, kbJson, makeSandbox, run, ROOT, type Sandbox } from '../helpers/cli.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-sig-');
});
afterEach(() => sb.cleanup());

function command(event: string): string {
  const config = JSON.parse(fs.readFileSync(path.join(ROOT, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, { hooks: { command: string }[] }[]> };
  return config.hooks[event]![0]!.hooks[0]!.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', ROOT);
}

async function promptHook(prompt: string, session: string, cwd = '/home/u/elsewhere'): Promise<string> {
  const r = await run('sh', ['-c', command('UserPromptSubmit')], {
    env: { ...sb.env, GIT_KB_DATA: sb.data },
    input: JSON.stringify({ session_id: session, transcript_path: '/nonexistent.jsonl', cwd, hook_event_name: 'UserPromptSubmit', prompt }),
  });
  expect(r.code).toBe(0);
  if (!r.stdout) return '';
  const out = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
  expect(out.hookSpecificOutput.hookEventName).toBe('UserPromptSubmit');
  return out.hookSpecificOutput.additionalContext;
}

function pointerLines(context: string): string[] {
  return context.split('\n').filter((l) => l.startsWith('- '));
}

describe('host signal', () => {
  beforeEach(async () => {
    await kbJson(sb, ['host', 'register', 'pop-os', '--marker', '192.168.1.20', '--marker', '/pop-?os\\.lan/i', '--alias', 'popos']);
    await kbJson(sb, ['host', 'register', 'dssh', '--marker', 'debian-nas']);
    await kbJson(sb, ['host', 'add', 'pop-os', 'sudo needs -S over ssh']);
    await kbJson(sb, ['host', 'add', 'pop-os', 'nginx logs are in /srv/log']);
    await kbJson(sb, ['host', 'add', 'dssh', 'the NAS shares are under /mnt/tank']);
  });

  it('a prompt naming a host by a marker gets one pointer line to its facts', async () => {
    const ctx = await promptHook('why does the upstream at 192.168.1.20 keep timing out under load', 's-1');
    expect(pointerLines(ctx)).toEqual(['- host:pop-os — 2 facts about host pop-os; `git-kb host load pop-os` prints them']);
    const byRegex = await promptHook('the certificate of POP-OS.LAN expired again this week', 's-2');
    expect(pointerLines(byRegex)).toEqual(['- host:pop-os — 2 facts about host pop-os; `git-kb host load pop-os` prints them']);
  });

  it('matches markers in code fences too, points to each host once per session, in order of mention', async () => {
    const prompt = 'this log from the debian-nas backup job:\n```\nrsync: connection to popos refused\n```\nwhat changed?';
    const first = await promptHook(prompt, 's-3');
    expect(pointerLines(first).map((l) => l.split(' — ')[0])).toEqual(['- host:dssh', '- host:pop-os']);
    const again = await promptHook(`${prompt} (asking again)`, 's-3');
    expect(pointerLines(again).filter((l) => l.startsWith('- host:'))).toEqual([]);
  });

  it('sees a new marker at once (hosts.yaml is part of the freshness key)', async () => {
    expect(pointerLines(await promptHook('the build box named forge-7 is out of disk space', 's-4'))).toEqual([]);
    await kbJson(sb, ['host', 'register', 'dssh', '--marker', 'forge-7']);
    expect(pointerLines(await promptHook('the build box named forge-7 is out of disk space', 's-5'))[0]).toMatch(/^- host:dssh — 1 fact about host dssh/);
  });

  it('never points to a forbidden host, by key, alias or marker, nor to its facts by keyword', async () => {
    await kbJson(sb, ['host', 'register', 'hssh', '--marker', 'webspace.example.net', '--alias', 'webhost']);
    await kbJson(sb, ['host', 'add', 'hssh', '--title', 'Webspace deploy quirks webroot'], { input: 'the webroot is /var/www/html' });
    await kbJson(sb, ['host', 'register', 'hssh', '--forbidden']);
    for (const [i, p] of ['deploy the site to hssh tonight please', 'upload to webspace.example.net and check the webroot deploy quirks', 'is the webhost webroot full again'].entries()) {
      const ctx = await promptHook(p, `s-f${i}`);
      expect(ctx).not.toMatch(/hssh|webspace|Webspace/);
    }
  });

  it('says nothing about hosts while hosts.yaml is invalid (fails closed) and never fails the prompt', async () => {
    fs.writeFileSync(path.join(sb.data, 'hosts.yaml'), 'hosts:\n  pop-os:\n    forbiden: true\n');
    const ctx = await promptHook('why does the upstream at 192.168.1.20 keep timing out under load', 's-6');
    expect(ctx).not.toContain('host:pop-os');
  });
});

describe('recent-sessions signal', () => {
  const proj = '/home/u/src/widgets';

  async function summary(sessionId: string, minute: number, title: string, cwd = proj): Promise<string> {
    const t = path.join(sb.root, `${sessionId}.jsonl`);
    const base = Date.UTC(2026, 4, 1, 9, minute, 0);
    const recs = [
      { type: 'custom-title', customTitle: title, sessionId },
      { type: 'user', sessionId, cwd, gitBranch: 'main', uuid: `${sessionId}-1`, timestamp: new Date(base).toISOString(), message: { role: 'user', content: `work on ${title}` } },
      { type: 'user', sessionId, cwd, gitBranch: 'main', uuid: `${sessionId}-2`, timestamp: new Date(base + 60_000).toISOString(), message: { role: 'user', content: 'and finish it' } },
    ];
    fs.writeFileSync(t, recs.map((r) => JSON.stringify(r)).join('\n'));
    return (await kbJson(sb, ['session', 'record', '--transcript', t])).id as string;
  }

  it('the first prompt of a session lists the latest summaries of the same directory; the second does not', async () => {
    const ids = [await summary('old-1', 1, 'First widget pass'), await summary('mid-2', 10, 'Card wrapper markup'), await summary('new-3', 20, 'Lazy thumbnails'), await summary('new-4', 30, 'Thumbnail cache')];
    await summary('other-5', 40, 'Unrelated project work', '/home/u/src/other');
    const first = await promptHook('make the gallery page load faster on slow phones', 'current-1', proj);
    expect(pointerLines(first)).toEqual([
      `- ${ids[3]} — earlier session: 2026-05-01 · main · Thumbnail cache (2 prompts)`,
      `- ${ids[2]} — earlier session: 2026-05-01 · main · Lazy thumbnails (2 prompts)`,
      `- ${ids[1]} — earlier session: 2026-05-01 · main · Card wrapper markup (2 prompts)`,
    ]);
    const second = await promptHook('now also compress the hero images on the landing page', 'current-1', proj);
    expect(pointerLines(second).filter((l) => l.includes('earlier session'))).toEqual([]);
  });

  it('leaves out trivial sessions: one prompt, no file changed (a denied Write changes none), a few minutes (spec/sessions.md)', async () => {
    const t = path.join(sb.root, 'triv-1.jsonl');
    const base = Date.UTC(2026, 4, 1, 9, 50, 0);
    const one = (extra: object[] = []) =>
      [
        { type: 'user', sessionId: 'triv-1', cwd: proj, gitBranch: 'main', uuid: 'triv-1-1', timestamp: new Date(base).toISOString(), message: { role: 'user', content: 'what time is it in Tokyo' } },
        { type: 'user', sessionId: 'triv-1', cwd: proj, gitBranch: 'main', uuid: 'triv-1-2', timestamp: new Date(base).toISOString(), message: { role: 'user', content: '<command-name>/exit</command-name>' } },
        ...extra,
      ]
        .map((r) => JSON.stringify(r))
        .join('\n');
    fs.writeFileSync(t, one());
    const trivial = (await kbJson(sb, ['session', 'record', '--transcript', t])).id as string;
    const kept = await summary('real-2', 40, 'Thumbnail cache');
    expect(pointerLines(await promptHook('make the gallery page load faster on slow phones', 'current-2', proj))).toEqual([`- ${kept} — earlier session: 2026-05-01 · main · Thumbnail cache (2 prompts)`]);
    // The same one prompt and a Write that was denied: still trivial.
    const write = { type: 'assistant', sessionId: 'triv-1', cwd: proj, uuid: 'triv-1-3', timestamp: new Date(base + 30_000).toISOString(), message: { id: 'm1', role: 'assistant', model: 'm', content: [{ type: 'tool_use', id: 'tu1', name: 'Write', input: { file_path: `${proj}/notes.md`, content: 'x' } }] } };
    const result = (content: string, isError: boolean) => ({ type: 'user', sessionId: 'triv-1', cwd: proj, uuid: 'triv-1-4', timestamp: new Date(base + 31_000).toISOString(), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content, is_error: isError }] } });
    fs.writeFileSync(t, one([write, result('PreToolUse:Write hook error: held', true)]));
    expect((await kbJson(sb, ['session', 'record', '--transcript', t])).id).toBe(trivial);
    expect(pointerLines(await promptHook('make the gallery page load faster on slow phones', 'current-4', proj)).map((l) => l.split(' — ')[0])).toEqual([`- ${kept}`]);
    // The Write went through: the session changed a file and is no longer trivial.
    fs.writeFileSync(t, one([write, result('File created successfully at: notes.md', false)]));
    expect((await kbJson(sb, ['session', 'record', '--transcript', t])).id).toBe(trivial);
    expect(pointerLines(await promptHook('make the gallery page load faster on slow phones', 'current-3', proj)).map((l) => l.split(' — ')[0])).toEqual([`- ${trivial}`, `- ${kept}`]);
  });

  it('leaves out the current session and other directories, and says nothing in a directory without summaries', async () => {
    const ids = [await summary('aaa-1', 1, 'Alpha work'), await summary('bbb-2', 2, 'Beta work')];
    const ctx = await promptHook('continue where we left off with the widget build', 'bbb-2', `${proj}/`);
    expect(pointerLines(ctx)).toEqual([`- ${ids[0]} — earlier session: 2026-05-01 · main · Alpha work (2 prompts)`]);
    const none = await promptHook('continue where we left off with the widget build', 'zzz-9', '/home/u/src/nothing-here');
    expect(pointerLines(none)).toEqual([]);
  });

  it('keeps the index header small with 2,000 summaries in 400 directories (the list is in a side file)', async () => {
    await kbJson(sb, ['host', 'register', 'box']);
    fs.mkdirSync(path.join(sb.data, 'sessions', '2026', '05'), { recursive: true });
    for (let i = 0; i < 2000; i++) {
      const id = `kb-s${i.toString(36).padStart(5, '0')}`;
      const stamp = new Date(Date.UTC(2026, 4, 1, 0, 0, i)).toISOString().replace(/\.\d{3}Z$/, 'Z');
      fs.writeFileSync(
        path.join(sb.data, 'sessions', '2026', '05', `${id}.md`),
        `---\nid: ${id}\ntitle: "Session ${i}"\ntype: session_summary\ntags: []\ncreated: ${stamp}\nupdated: ${stamp}\nsession_id: s-${i}\ncwd: /home/u/p${i % 400}\nended: ${stamp}\nturns: 3\n---\n\nbody\n`,
      );
    }
    await git(sb.data, ['add', '-A'], sb.env);
    await git(sb.data, ['commit', '-qm', 'many sessions'], sb.env);
    const ctx = await promptHook('what did we do last time in this project directory', 'fresh-1', '/home/u/p7');
    expect(pointerLines(ctx).map((l) => l.replace(/^- kb-\w+ — /, ''))).toEqual([
      'earlier session: 2026-05-01 · Session 1607 (3 prompts)',
      'earlier session: 2026-05-01 · Session 1207 (3 prompts)',
      'earlier session: 2026-05-01 · Session 807 (3 prompts)',
    ]);
    const index = fs.readFileSync(path.join(sb.data, '.git', 'git-kb', 'prompt', 'index.v1'));
    const headerLength = index.readUInt32LE(8);
    expect(headerLength).toBeLessThan(16 * 1024);
    expect(fs.readdirSync(path.join(sb.data, '.git', 'git-kb', 'prompt')).filter((f) => f.startsWith('recent-'))).toHaveLength(1);
  });
});
