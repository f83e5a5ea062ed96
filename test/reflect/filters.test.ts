/** The pure parts of reflection: the session material, the prompt, reading the child's answer, and the filters. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isHelpCommand, isRealWork, reflectMaterial } from '../../src/core/reflect/material.js';
import { REFLECT_OPENING } from '../../src/core/reflect/opening.js';
import { buildReflectPrompt, MAX_PROPOSALS, PROPOSALS_SCHEMA } from '../../src/core/reflect/prompt.js';
import { coverage, loose, obviousReason, quoteFound, reflectAnswer, shapeProposal, slugKey, type Proposal } from '../../src/core/reflect/proposals.js';
import { summarizeSession, transcriptScrubber } from '../../src/core/sessions/summary.js';
import { parseTranscript } from '../../src/core/sessions/transcript.js';
import { FIXTURE, FIXTURE_TOKEN } from './support.js';

const facts = parseTranscript(fs.readFileSync(FIXTURE, 'utf8'));
const material = reflectMaterial(facts, transcriptScrubber(facts));
const looseText = loose(material.text);
const envelope = (result: string, extra: Record<string, unknown> = {}): string => JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result, ...extra });
const exit = (stdout: string, code = 0) => ({ kind: 'exit' as const, code, signal: null, stdout, stderr: '' });
const fact = (over: Partial<Proposal> = {}): Proposal => ({ kind: 'host_fact', host: 'build-box', title: 't', text: 'x', quote: '0 3 * * * /opt/ci/cleanup.sh', ...over });

describe('the material', () => {
  it('holds prompts, commands with their output and replies, redacted, and counts the work', () => {
    expect(material.text).toContain('[prompt 1]\nThe nightly build on build-box.lan fails');
    expect(material.text).toContain('[tool Bash] ssh build-box.lan sudo crontab -l');
    expect(material.text).toContain('0 3 * * * /opt/ci/cleanup.sh --keep-days 30');
    expect(material.text).toContain('[reply]\nFixed: on build-box.lan');
    expect(material.text).not.toContain(FIXTURE_TOKEN);
    expect(material.text).toContain('[REDACTED:');
    expect(material.redactions).toBeGreaterThan(0);
    expect(material.work).toEqual({ commands: 4, filesChanged: 1, toolCalls: 5 });
    expect(material.helpTexts).toHaveLength(1);
    expect(material.helpTexts[0]).toMatch(/^Usage: rsync/);
  });

  it('keeps a long session within its cap: the first prompts and the latest work and replies, with a note between', () => {
    const big = parseTranscript(fs.readFileSync(FIXTURE, 'utf8'));
    const many = { ...big, toolUses: [...big.toolUses], toolResults: [...big.toolResults], assistantTexts: [...big.assistantTexts] };
    for (let i = 0; i < 60; i++) {
      many.toolUses.push({ name: 'Bash', input: { command: `make step-${i}` }, id: `t-${i}` });
      many.toolResults.push({ toolUseId: `t-${i}`, text: `output of step ${i} `.repeat(150) });
    }
    many.assistantTexts.push('The last reply says what was found.');
    const m = reflectMaterial(many, transcriptScrubber(many));
    expect(m.text.length).toBeLessThanOrEqual(60_000);
    expect(m.text.startsWith('[prompt 1]\nThe nightly build on build-box.lan')).toBe(true);
    expect(m.text).toMatch(/\[… \d+ pieces left out here\]/);
    expect(m.text.endsWith('The last reply says what was found.')).toBe(true);
    expect(m.text).toContain('[tool Bash] make step-59');
  });

  it('calls real work a command, a file changed, or three tool calls', () => {
    expect(isRealWork({ commands: 1, filesChanged: 0, toolCalls: 1 })).toBe(true);
    expect(isRealWork({ commands: 0, filesChanged: 1, toolCalls: 1 })).toBe(true);
    expect(isRealWork({ commands: 0, filesChanged: 0, toolCalls: 3 })).toBe(true);
    expect(isRealWork({ commands: 0, filesChanged: 0, toolCalls: 2 })).toBe(false);
  });

  it.each([
    ['rsync --help', true],
    ['man 5 crontab', true],
    ['git help rebase', true],
    ['tldr tar', true],
    ['df -h /var', false],
    ['sort -h sizes.txt', false],
    ['echo helpful', false],
  ])('tells a help command: %s', (cmd, yes) => {
    expect(isHelpCommand(cmd)).toBe(yes);
  });
});

describe('the prompt', () => {
  it('opens with the words that mark git-kb\'s own child, states the three filters, fences the session', () => {
    const p = buildReflectPrompt({ material: 'SESSION TEXT', hosts: [{ key: 'build-box', facts: ['CI cache disk'] }], nonce: 'abc123' });
    expect(p.startsWith(REFLECT_OPENING)).toBe(true);
    expect(p).toContain('Not already known');
    expect(p).toContain('word for word');
    expect(p).toContain('Non-obvious: not a restatement of a --help text');
    expect(p).toContain('- build-box: already known: "CI cache disk"');
    expect(p).toMatch(/<<abc123>>\nSESSION TEXT\n<<abc123>>/);
    expect(JSON.parse(PROPOSALS_SCHEMA).properties.proposals.maxItems).toBe(MAX_PROPOSALS);
  });

  it('keeps the reflection child\'s own transcript out of session summaries', () => {
    const own = parseTranscript(
      JSON.stringify({ type: 'user', sessionId: 's-1', timestamp: '2026-05-04T10:00:00Z', message: { role: 'user', content: `${REFLECT_OPENING}. Propose…` } }),
    );
    expect(summarizeSession(own)).toEqual({ skip: 'git-kb-child' });
  });
});

describe('reading the answer', () => {
  const answer = { proposals: [{ kind: 'host_fact', host: 'Build-Box', title: 'T', text: 'X', quote: 'a quote long enough' }] };

  it.each([
    ['bare JSON', JSON.stringify(answer)],
    ['the envelope', envelope(JSON.stringify(answer))],
    ['structured_output', envelope('', { structured_output: answer })],
    ['a fenced block in chatty text', envelope(`Here:\n\`\`\`json\n${JSON.stringify(answer)}\n\`\`\``)],
  ])('reads proposals from %s', (_n, stdout) => {
    const r = reflectAnswer(exit(stdout));
    expect(r).toEqual({ kind: 'answer', proposals: [{ proposal: { kind: 'host_fact', host: 'build-box', title: 'T', text: 'X', quote: 'a quote long enough' } }] });
  });

  it.each([
    ['an error envelope', exit(envelope('{"proposals": []}', { is_error: true })), 'no proposals'],
    ['a failed exit', exit('', 1), 'exited with 1'],
    ['prose', exit('Nothing to add.'), 'no proposals'],
    ['a timeout', { kind: 'error' as const, reason: 'timeout after 5 ms' }, 'timeout'],
  ])('reports %s as an error', (_n, run, reason) => {
    const r = reflectAnswer(run);
    expect(r.kind).toBe('error');
    expect((r as { reason: string }).reason).toContain(reason);
  });

  it('says what a failed child said (its stderr, else its error envelope, else its stdout), one line, secrets redacted', () => {
    const said = (stdout: string, stderr = ''): string => (reflectAnswer({ kind: 'exit', code: 1, signal: null, stdout, stderr }) as { reason: string }).reason;
    expect(said('Not logged in · Please run /login\n')).toBe('the reflection child exited with 1: Not logged in · Please run /login');
    expect(said(envelope('Invalid API key · Fix external API key', { is_error: true }))).toBe('the reflection child exited with 1: Invalid API key · Fix external API key');
    expect(said('ignored', '\nerror: unknown option --x\nmore')).toBe('the reflection child exited with 1: error: unknown option --x');
    expect(said('')).toBe('the reflection child exited with 1');
    const leaked = said(`token ${FIXTURE_TOKEN} rejected`);
    expect(leaked).not.toContain(FIXTURE_TOKEN);
    expect(said('x'.repeat(500)).length).toBeLessThan(220);
  });

  it('caps the proposals read', () => {
    const many = { proposals: Array.from({ length: 20 }, () => answer.proposals[0]) };
    const r = reflectAnswer(exit(JSON.stringify(many)));
    expect(r.kind === 'answer' && r.proposals.length).toBe(MAX_PROPOSALS);
  });

  it('refuses malformed proposals with a reason, and gives a lesson a pattern key', () => {
    expect(shapeProposal({ kind: 'note', title: 'a', text: 'b', quote: 'long enough quote' })).toMatchObject({ malformed: 'unknown kind "note"' });
    expect(shapeProposal({ kind: 'lesson', title: '', text: 'b', quote: 'long enough quote' })).toMatchObject({ malformed: 'no title or text' });
    expect(shapeProposal({ kind: 'lesson', title: 'a', text: 'b', quote: 'short' })).toMatchObject({ malformed: 'no quote of 12 to 400 characters' });
    expect(shapeProposal({ kind: 'host_fact', title: 'a', text: 'b', quote: 'long enough quote' })).toMatchObject({ malformed: 'a host fact without a host' });
    expect(shapeProposal({ kind: 'lesson', title: 'Use pnpm --frozen-lockfile in CI!', text: 'b', quote: 'long enough quote', pattern_key: 'Not A Key' })).toEqual({
      proposal: { kind: 'lesson', title: 'Use pnpm --frozen-lockfile in CI!', text: 'b', quote: 'long enough quote', pattern_key: 'use-pnpm-frozen-lockfile-in-ci' },
    });
    expect(slugKey('!!!')).toBe('lesson');
  });
});

describe('the filters', () => {
  it('finds a quote with white space, case and quote marks loosened, and only then', () => {
    expect(quoteFound('/dev/sdb1 200G 199G 1.0G 100% /var/cache/ci', looseText)).toBe(true);
    expect(quoteFound('"# Cleanup runs from root’s crontab"', looseText)).toBe(true);
    expect(quoteFound('cleanup runs from the ci user crontab', looseText)).toBe(false);
    expect(quoteFound('crontab', looseText)).toBe(false);
    // The secret is not in the redacted text, so a quote of it is never found.
    expect(quoteFound(`GITHUB_TOKEN=${FIXTURE_TOKEN}`, looseText)).toBe(false);
  });

  it('drops a usage line and a quote only a help command printed, not a fact the session found', () => {
    expect(obviousReason(fact({ text: 'usage: rsync [OPTION]... SRC DEST' }), material.helpTexts, looseText)).toBe('obvious: restates a usage line');
    expect(obviousReason(fact({ quote: '--delete   delete extraneous files from dest dirs' }), material.helpTexts, looseText)).toBe('obvious: only a help command printed it');
    expect(obviousReason(fact({ quote: '0 3 * * * /opt/ci/cleanup.sh --keep-days 30' }), material.helpTexts, looseText)).toBeUndefined();
  });

  it('measures how much of a proposal a known text says', () => {
    const known = 'The CI cache /var/cache/ci on build-box is its own 200G disk, /dev/sdb1.';
    expect(coverage('The CI cache /var/cache/ci on build-box is its own 200G disk, /dev/sdb1.', known)).toBe(1);
    expect(coverage('build-box: its CI cache disk /dev/sdb1 holds /var/cache/ci (200G)', known)).toBeGreaterThanOrEqual(0.75);
    expect(coverage("On build-box the cleanup runs from root's crontab at 03:00.", known)).toBeLessThan(0.5);
    expect(coverage('', known)).toBe(0);
  });
});
