/**
 * Reflection through the real Claude Code CLI, end to end: the plugin installed from a marketplace, a session that
 * works on build-box.lan (a registered host) and finds a non-obvious fact ends, its SessionEnd hook starts the
 * reflection worker, whose model child is `claude -p` too (answered by the stand-in, told apart by its system
 * prompt): the fact is committed once, in a commit naming the session. The same session resumed and reflected again
 * on demand adds nothing; a session naming a forbidden host gets no reflection and no model call.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { git, kb, kbJson } from '../helpers/cli.js';
import { textsOf, type ModelRequest, type Reply } from '../helpers/model-api.js';
import { CLAUDE, installedRig, prompt, waitFor, type Rig } from './claude-support.js';
import { GOOD_FACT, isReflectRequest, structuredReply } from '../reflect/support.js';

let rig: Rig;
let env: NodeJS.ProcessEnv;
beforeAll(async () => {
  rig = await installedRig('gkb-cc-reflect-');
  const { sb } = rig;
  await kbJson(sb, ['host', 'register', 'build-box', '--marker', 'build-box.lan']);
  await kbJson(sb, ['host', 'register', 'vault-prod', '--forbidden', '--marker', 'vault.prod.example.com']);
  // The reflection child is the same pinned CLI (the sandbox's PATH has no `claude`).
  env = { KB_REFLECT_CLAUDE: CLAUDE };
}, 90_000);
afterAll(async () => {
  await rig?.stop();
});

/** The session's work: a command whose output shows where the cleanup job really runs from, then the answer. */
const CRONTAB = "echo '0 3 * * * /opt/ci/cleanup.sh --keep-days 30  # on build-box.lan, root'";

/** Main requests get `steps` in order; the reflection child gets `answer`; other side calls a short text. */
function script(steps: Reply[], answer: unknown): void {
  const queue = [...steps];
  rig.api.script((req: ModelRequest) => {
    if (isReflectRequest(req)) return structuredReply(req, answer);
    if (!req.main) return 'OK.';
    return queue.shift() ?? 'Done.';
  });
}

const reflectRequests = (): ModelRequest[] => rig.api.requests.filter((r) => r.messages && isReflectRequest(r));
const reflectCommits = async (): Promise<string[]> => (await git(rig.sb.data, ['log', '--format=%s'], rig.sb.env)).split('\n').filter((s) => s.startsWith('reflect '));

describe('reflection through the real CLI', () => {
  it('commits the host fact a session found once, naming the session; the same session again adds nothing', async () => {
    const { sb, api } = rig;
    script([{ tool: 'Bash', input: { command: CRONTAB, description: "Root's crontab on build-box" } }, "Fixed: on build-box.lan the cleanup runs from root's crontab."], { proposals: [GOOD_FACT] });
    api.reset();
    const r = await prompt(sb, 'The nightly build on build-box.lan fails with a disk error. Find out why the cleanup does not run.', ['--allowedTools', 'Bash'], { env });
    const session = r.json.session_id!;
    expect(r.json.result).toContain("root's crontab");

    // SessionEnd started the worker; its child asked the stand-in with the reflection prompt and the session's text.
    const commits = await waitFor(async () => ((await reflectCommits()).length > 0 ? reflectCommits() : undefined), 60_000);
    expect(commits).toEqual([`reflect ${session}: 1 host fact, 0 lessons`]);
    const asked = reflectRequests();
    expect(asked.length).toBeGreaterThan(0);
    expect(textsOf(asked[0]!).join('\n')).toContain('/opt/ci/cleanup.sh --keep-days 30');
    const facts = await kbJson(sb, ['host', 'load', 'build-box']);
    expect(facts.facts.map((f: { title: string }) => f.title)).toEqual([GOOD_FACT.title]);
    expect(facts.facts[0].body).toContain(`From session ${session}`);

    // Resumed: the hooks find the session reflected, so no second model call and no commit.
    const calls = reflectRequests().length;
    script(['Nothing else to do.'], { proposals: [GOOD_FACT] });
    await prompt(sb, 'Anything else on build-box.lan?', ['--resume', session], { env });
    await new Promise((res) => setTimeout(res, 2_000));
    expect(reflectRequests().length).toBe(calls);

    // On demand: the model is asked again, and the fact is found known.
    const again = await kb(sb, ['--data', sb.data, 'reflect', '--session', session, '--json'], { env: sb.claudeEnv(env) });
    expect(again.code, again.stderr).toBe(0);
    const out = JSON.parse(again.stdout);
    expect(out.proposals[0]).toMatchObject({ decision: 'dropped' });
    expect(out.proposals[0].reason).toMatch(/^known: kb-/);
    expect(await reflectCommits()).toEqual([`reflect ${session}: 1 host fact, 0 lessons`]);
  }, 180_000);

  it('gives a session that names a forbidden host no reflection and no model call', async () => {
    const { sb, api } = rig;
    script([{ tool: 'Bash', input: { command: "echo 'sealed: true  # vault.prod.example.com'", description: 'Vault status' } }, 'Vault is sealed.'], { proposals: [GOOD_FACT] });
    api.reset();
    const r = await prompt(sb, 'Is vault.prod.example.com sealed again? Check it.', ['--allowedTools', 'Bash'], { env });
    expect(r.json.result).toBe('Vault is sealed.');
    // Give SessionEnd's workers time to run (they exit at once here), then check nothing asked the model.
    await waitFor(() => undefined, 4_000);
    expect(reflectRequests()).toEqual([]);
    expect(await reflectCommits()).toHaveLength(1);
  }, 120_000);
});
