/**
 * Which session a transcript is (src/adapters/store/transcript-id.ts): the last line that carries an id, read from
 * the file's end; the given id, then the file name, only when no line carries one.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { lastLineSessionId, transcriptSessionId } from '../src/adapters/store/transcript-id.js';
import { lineSessionId, parseTranscript } from '../src/core/sessions/transcript.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-tid-'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

const rec = (sessionId: string | undefined, extra: Record<string, unknown> = {}): string => `${JSON.stringify({ parentUuid: null, isSidechain: false, ...(sessionId ? { sessionId } : {}), type: 'user', message: { role: 'user', content: 'hi' }, ...extra })}\n`;
const write = (name: string, text: string): string => {
  const f = path.join(dir, name);
  fs.writeFileSync(f, text);
  return f;
};

describe('lineSessionId', () => {
  it('reads the top-level sessionId of a whole line, wherever it stands, and of the start of a cut one', () => {
    expect(lineSessionId('{"type":"system","hookInfos":[{"sessionId":"nested"}],"sessionId":"s-1"}')).toBe('s-1');
    expect(lineSessionId('{"type":"summary","summary":"x","leafUuid":"u"}')).toBeUndefined();
    expect(lineSessionId('{"message":{"content":"\\"sessionId\\":\\"fake\\""},"type":"user"}')).toBeUndefined();
    expect(lineSessionId('\ufeff{"sessionId":"s-bom"}')).toBe('s-bom');
    expect(lineSessionId('{"parentUuid":null,"isSidechain":false,"cwd":"/x","sessionId":"s-2","message":{"content":"a very long te', false)).toBe('s-2');
    expect(lineSessionId('{"parentUuid":null,"message":{"sessionId":"inner","content":"cut her')).toBeUndefined();
    expect(lineSessionId('not json')).toBeUndefined();
    expect(lineSessionId('{"sessionId":42}')).toBeUndefined();
  });
});

describe('transcriptSessionId', () => {
  it('takes the last line that carries an id (a resumed file begins with the history it copied), as parseTranscript does', () => {
    const text = rec('old') + rec('old') + rec('new') + '{"type":"summary","summary":"t","leafUuid":"u"}\n';
    const f = write('whatever.jsonl', text);
    expect(transcriptSessionId(f)).toBe('new');
    expect(parseTranscript(text).sessionId).toBe('new');
    expect(transcriptSessionId(f, { given: 'payload' })).toBe('new');
  });

  it('falls back to the given id, then to the name of a .jsonl file; a file of another kind has none', () => {
    const f = write('7f3c2a10-aaaa.jsonl', '{"type":"summary","summary":"t"}\n');
    expect(transcriptSessionId(f, { given: 'from-hook' })).toBe('from-hook');
    expect(transcriptSessionId(f)).toBe('7f3c2a10-aaaa');
    expect(transcriptSessionId(write('README.md', '# not a transcript\n'))).toBeUndefined();
    expect(transcriptSessionId(path.join(dir, 'gone.jsonl'))).toBe('gone');
  });

  it('finds the id past a last line of megabytes and a last line still being written, reading from the end', () => {
    const huge = rec('s-huge', { message: { role: 'user', content: 'x'.repeat(3 * 1024 * 1024) } });
    expect(lastLineSessionId(write('a.jsonl', rec('first') + huge))).toBe('s-huge');
    const noId = `{"type":"attachment","content":"${'y'.repeat(3 * 1024 * 1024)}"}\n`;
    expect(lastLineSessionId(write('b.jsonl', rec('before') + noId))).toBe('before');
    expect(lastLineSessionId(write('c.jsonl', rec('done') + '{"parentUuid":null,"sessionId":"writing","message":{"content":"half'))).toBe('writing');
    expect(lastLineSessionId(write('d.jsonl', rec('only')))).toBe('only');
    expect(lastLineSessionId(write('e.jsonl', rec('no-newline').trimEnd()))).toBe('no-newline');
    expect(lastLineSessionId(write('f.jsonl', ''))).toBeUndefined();
  });

  it('never waits on a FIFO given as a transcript', () => {
    const fifo = path.join(dir, 'fifo.jsonl');
    if (spawnSync('mkfifo', [fifo]).status !== 0) return;
    expect(transcriptSessionId(fifo, { given: 'g' })).toBe('g');
  });
});
