/**
 * The turn log (src/core/sessions/turns.ts) and the redaction of transcript lines (transcript.ts) on the recorded
 * fixtures: turns numbered by real prompt with every reply and tool call, stable anchors, secret-file reads never
 * kept, structure kept through redaction.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { redactSecrets } from '../src/core/secrets/scan.js';
import { parseTranscript, redactTranscriptLine } from '../src/core/sessions/transcript.js';
import { findTurn, grepLog, SECRET_FILE_OUTPUT, sessionLog, turnPieces } from '../src/core/sessions/turns.js';

const FIX = path.join(import.meta.dirname, 'fixtures', 'transcripts');
const read = (f: string): string => fs.readFileSync(path.join(FIX, f), 'utf8');
const logOf = (f: string) => {
  const facts = parseTranscript(read(f));
  return sessionLog(facts, facts.sessionId!)!;
};

describe('sessionLog', () => {
  it('keeps each turn with its prompt, every reply (not only the last) and each tool call with its output', () => {
    const log = logOf('coding-session.jsonl');
    expect(log.turns.map((t) => t.n)).toEqual([1, 2, 3]);
    expect(log.turns[0]!.prompt).toMatch(/^The invoice totals are off by a cent/);
    expect(log.turns[0]!.replies).toHaveLength(3);
    expect(log.turns[0]!.tools.map((t) => t.name)).toEqual(['Read', 'Read', 'Edit', 'Write', 'Bash']);
    const bash = log.turns[0]!.tools[4]!;
    expect(bash.call.length).toBeGreaterThan(0);
    expect(bash.output!.length).toBeGreaterThan(0);
    expect(log.id).toMatch(/^kb-[0-9a-z]{10}$/);
    expect(log.title).toBe('Fix cent rounding in invoice totals');
  });

  it('gives each turn an 8-character anchor, the same on every read and different between turns', () => {
    const a = logOf('slash-commands.jsonl');
    const b = logOf('slash-commands.jsonl');
    expect(a.turns.map((t) => t.anchor)).toEqual(b.turns.map((t) => t.anchor));
    for (const t of a.turns) expect(t.anchor).toMatch(/^[0-9a-f]{8}$/);
    expect(new Set(a.turns.map((t) => t.anchor)).size).toBe(a.turns.length);
    // A transcript that grew keeps the anchors of its earlier turns.
    const text = read('slash-commands.jsonl').split('\n').filter(Boolean);
    const head = parseTranscript(text.slice(0, Math.floor(text.length / 2)).join('\n'));
    const early = sessionLog(head, head.sessionId!)!;
    expect(early.turns.map((t) => t.anchor)).toEqual(a.turns.slice(0, early.turns.length).map((t) => t.anchor));
  });

  it('keeps no output of a Read of a secret file', () => {
    const log = logOf('truncated.jsonl');
    const reads = log.turns.flatMap((t) => t.tools).filter((t) => t.name === 'Read' && /\.env/.test(t.call));
    expect(reads.length).toBeGreaterThan(0);
    for (const r of reads) expect(r.output).toBe(SECRET_FILE_OUTPUT);
  });

  it('finds a turn by number or anchor, and the lines that hold a text with their turn', () => {
    const log = logOf('coding-session.jsonl');
    const second = log.turns[1]!;
    expect(findTurn(log, '2')).toBe(second);
    expect(findTurn(log, second.anchor)).toBe(second);
    expect(findTurn(log, `#${second.anchor.toUpperCase()}`)).toBe(second);
    expect(findTurn(log, '9')).toBeUndefined();
    const lines = grepLog(log, 'jpy');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines[0]).toMatchObject({ n: 2, anchor: second.anchor, kind: 'prompt' });
    for (const l of lines) expect(l.line.toLowerCase()).toContain('jpy');
  });

  it('makes one searchable piece per prompt, reply, recap and tool call', () => {
    const log = logOf('subagent-compact.jsonl');
    const pieces = turnPieces(log);
    const count = log.turns.reduce((n, t) => n + (t.prompt ? 1 : 0) + t.replies.length + t.recaps.length + t.tools.length, 0);
    expect(pieces).toHaveLength(count);
    expect(pieces.some((p) => p.kind === 'recap')).toBe(true);
    expect(new Set(pieces.map((p) => p.key)).size).toBe(pieces.length);
  });
});

describe('redactTranscriptLine', () => {
  const scrub = (s: string): string => redactSecrets(s).text;
  it('redacts every text of a record and keeps its ids, times and types', () => {
    const token = `ghp_${'A1b2C3d4E5f6G7h8I9j0'.repeat(2).slice(0, 36)}`;
    const rec = { type: 'user', uuid: 'u-1', parentUuid: 'u-0', sessionId: 's-1', timestamp: '2026-05-01T10:00:00.000Z', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01ABCdefGHIjklMNOpqrSTUv', content: `export GITHUB_TOKEN=${token}` }] } };
    const out = JSON.parse(redactTranscriptLine(JSON.stringify(rec), scrub));
    expect(JSON.stringify(out)).not.toContain(token);
    expect(out.message.content[0].content).toContain('[REDACTED');
    expect(out).toMatchObject({ type: 'user', uuid: 'u-1', parentUuid: 'u-0', sessionId: 's-1', timestamp: rec.timestamp });
    expect(out.message.content[0].tool_use_id).toBe('toolu_01ABCdefGHIjklMNOpqrSTUv');
  });
  it('scrubs a line that is not JSON as text', () => {
    const token = `ghp_${'Z9y8X7w6V5u4T3s2R1q0'.repeat(2).slice(0, 36)}`;
    expect(redactTranscriptLine(`{"type":"user","message":"${token}`, scrub)).not.toContain(token);
  });
});
