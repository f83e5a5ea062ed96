/**
 * Decay (spec/memory.md, "Decay"): an old lesson ranks below a new one with the same words, an old decision does
 * not; evergreen types, kernel, host facts and `evergreen: true` never decay; the floor keeps an old entry's score
 * at least `floor` of it (0.5 by default, half-life 30 days), relative to the freshest decaying candidate, so an
 * old lesson alone never falls behind an evergreen entry for its age; kb.json's "decay" turns it off, changes
 * half-lives per type, and is validated. The prompt hook applies the same curve from its index: the newer lesson
 * is pointed to first and the old one it supersedes gives way, an old lesson alone still fires, and a new kb.json
 * is a rebuild.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dayOf, decayFactor, decayStamp, DEFAULT_DECAY, freshestDecay, relativeDecay, stampFactor } from '../../src/core/decay.js';
import { rebuildPromptIndex } from '../../src/adapters/index/prompt/build.js';
import { updatePromptIndex } from '../../src/adapters/index/prompt/update.js';
import { decide, rankKeywords } from '../../src/hooks/prompt/signals.js';
import { analyzePrompt } from '../../src/core/text/prompt-text.js';
import { readDecaySettings } from '../../src/adapters/store/repo-settings.js';
import { searchEntries } from '../../src/app/search.js';
import { readSettings } from '../../src/adapters/config/settings.js';

const NOW = new Date('2026-12-01T00:00:00Z');
const DAY = 86_400_000;
const daysAgo = (n: number): string => new Date(NOW.getTime() - n * DAY).toISOString();

let dir: string;
const put = (id: string, fields: Record<string, string>, body: string): void => {
  const fm = Object.entries({ id, ...fields }).map(([k, v]) => `${k}: ${v}`).join('\n');
  const rel = fields.host ? `hosts/${fields.host}/${id}.md` : `entries/${id}.md`;
  fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  fs.writeFileSync(path.join(dir, rel), `---\n${fm}\n---\n\n${body}\n`);
};
const kbJson = (value: unknown): void => fs.writeFileSync(path.join(dir, 'kb.json'), JSON.stringify(value));
const order = async (query: string): Promise<string[]> => (await searchEntries({ settings: readSettings({ HOME: os.tmpdir() }), data: dir, queries: [query], now: NOW })).results.filter((h) => !h.via).map((h) => h.id);

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gkb-decay-'));
  fs.mkdirSync(path.join(dir, '.git'));
  kbJson({});
  const words = 'Retry the flaky websocket handshake with a jittered backoff.';
  // The old entries sort first on every tie-break that is not decay (older id, same words, same length).
  put('kb-0001', { title: 'Websocket handshake retries', type: 'lesson_learned', updated: daysAgo(120) }, words);
  put('kb-0002', { title: 'Websocket handshake retries', type: 'lesson_learned', updated: daysAgo(1) }, words);
  put('kb-0003', { title: 'Cache invalidation policy', type: 'decision', updated: daysAgo(400) }, 'Invalidate the edge cache on every deploy of the catalogue.');
  put('kb-0004', { title: 'Cache invalidation policy', type: 'bookmark', updated: daysAgo(2) }, 'Invalidate the edge cache on every deploy of the catalogue.');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('decay factor', () => {
  const s = { ...DEFAULT_DECAY, floor: 0.5 };
  it('defaults to a 30-day half-life and a floor of 0.5: a 200-day lesson keeps about half its score', () => {
    expect(DEFAULT_DECAY).toEqual({ enabled: true, half_life_days: 30, by_type: {}, floor: 0.5 });
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(30) }, DEFAULT_DECAY, NOW.getTime())).toBeCloseTo(0.75, 6);
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(200) }, DEFAULT_DECAY, NOW.getTime())).toBeCloseTo(0.505, 3);
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(36500) }, DEFAULT_DECAY, NOW.getTime())).toBeCloseTo(0.5, 6);
  });
  it('is relative to the freshest decaying candidate: evergreen entries are not compared by age', () => {
    expect(freshestDecay([undefined, 0.6, 0.9])).toBe(0.9);
    expect(freshestDecay([undefined, undefined])).toBe(1);
    expect(relativeDecay(0.45, 0.9)).toBeCloseTo(0.5, 6);
    expect(relativeDecay(0.9, 0.9)).toBe(1);
    expect(relativeDecay(undefined, 0.9)).toBe(1);
  });
  it('stamps an entry for the prompt index with the same curve, to the day', () => {
    const now = NOW.getTime();
    const [day, half] = decayStamp({ type: 'lesson_learned', updated: daysAgo(200) }, DEFAULT_DECAY);
    expect(half).toBe(30);
    expect(stampFactor(day, half, DEFAULT_DECAY.floor, dayOf(now))).toBeCloseTo(decayFactor({ type: 'lesson_learned', updated: daysAgo(200) }, DEFAULT_DECAY, now), 6);
    expect(decayStamp({ type: 'decision', updated: daysAgo(200) }, DEFAULT_DECAY)).toEqual([0, 0]);
    expect(decayStamp({ type: 'lesson_learned', evergreen: true, updated: daysAgo(200) }, DEFAULT_DECAY)).toEqual([0, 0]);
    expect(decayStamp({ type: 'lesson_learned' }, DEFAULT_DECAY)).toEqual([0, 0]);
    expect(decayStamp({ type: 'lesson_learned', updated: daysAgo(200) }, { ...DEFAULT_DECAY, enabled: false })).toEqual([0, 0]);
  });
  const now = NOW.getTime();
  it('halves the distance to the floor every half-life and never goes below the floor', () => {
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(0) }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(30) }, s, now)).toBeCloseTo(0.75, 6);
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(60) }, s, now)).toBeCloseTo(0.625, 6);
    expect(decayFactor({ type: 'bookmark', created: daysAgo(3650) }, s, now)).toBeGreaterThanOrEqual(0.5);
    expect(decayFactor({ type: 'session_summary', updated: daysAgo(30) }, s, now)).toBeCloseTo(0.75, 6);
  });
  it('ages from updated, else created; an undated or future entry is new', () => {
    expect(decayFactor({ type: 'lesson_learned', created: daysAgo(300), updated: daysAgo(0) }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', created: daysAgo(30) }, s, now)).toBeCloseTo(0.75, 6);
    expect(decayFactor({ type: 'lesson_learned' }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', updated: new Date(now + 10 * DAY).toISOString() }, s, now)).toBe(1);
  });
  it('exempts the evergreen: kernel, conventions, decisions, references, host facts, evergreen: true', () => {
    const old = daysAgo(1000);
    for (const type of ['pattern_convention', 'decision', 'factual_reference', 'host_fact']) expect(decayFactor({ type, updated: old }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', kernel: true, updated: old }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', host: 'db-1', updated: old }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', evergreen: true, updated: old }, s, now)).toBe(1);
    expect(decayFactor({ type: 'lesson_learned', evergreen: 'yes', updated: old }, s, now)).toBeLessThan(1);
  });
  it('follows per-type half-lives (0: no decay) and the switch', () => {
    const t = { ...s, by_type: { bookmark: 90, lesson_learned: 0, decision: 30 } };
    expect(decayFactor({ type: 'bookmark', updated: daysAgo(90) }, t, now)).toBeCloseTo(0.75, 6);
    expect(decayFactor({ type: 'lesson_learned', updated: daysAgo(90) }, t, now)).toBe(1);
    expect(decayFactor({ type: 'decision', updated: daysAgo(30) }, t, now)).toBeCloseTo(0.75, 6);
    expect(decayFactor({ type: 'bookmark', updated: daysAgo(90) }, { ...s, enabled: false }, now)).toBe(1);
  });
});

describe('search with decay', () => {
  it('ranks an old lesson below a new one with the same words', async () => {
    expect(await order('websocket handshake retry')).toEqual(['kb-0002', 'kb-0001']);
  });
  it('does not lower an old decision: an old bookmark with the same words gives way to a new one, the decision keeps its score', async () => {
    put('kb-0009', { title: 'Cache invalidation policy', type: 'bookmark', updated: daysAgo(400) }, 'Invalidate the edge cache on every deploy of the catalogue.');
    const r = await searchEntries({ settings: readSettings({ HOME: os.tmpdir() }), data: dir, queries: ['edge cache invalidation'], now: NOW });
    const hits = r.results.filter((h) => !h.via);
    // Same words: the new bookmark (the freshest decaying hit) and the decision tie, the newer first; the old bookmark last.
    expect(hits.map((h) => h.id)).toEqual(['kb-0004', 'kb-0003', 'kb-0009']);
    expect(hits[2]!.score).toBeLessThan(hits[1]!.score * 0.6);
    kbJson({ decay: { enabled: false } });
    const off = (await searchEntries({ settings: readSettings({ HOME: os.tmpdir() }), data: dir, queries: ['edge cache invalidation'], now: NOW })).results.filter((h) => !h.via);
    expect(off.find((h) => h.id === 'kb-0003')!.score).toBe(hits.find((h) => h.id === 'kb-0003')!.score);
    expect(off.find((h) => h.id === 'kb-0009')!.score).toBe(hits.find((h) => h.id === 'kb-0003')!.score);
  });
  it('does not lower an old lesson marked evergreen, nor when kb.json says lessons do not decay', async () => {
    const f = path.join(dir, 'entries', 'kb-0001.md');
    const scores = async (): Promise<number[]> => (await searchEntries({ settings: readSettings({ HOME: os.tmpdir() }), data: dir, queries: ['websocket handshake retry'], now: NOW })).results.map((h) => h.score);
    expect((await scores())[1]).toBeLessThan((await scores())[0]! * 0.6);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('type: lesson_learned', 'type: lesson_learned\nevergreen: true'));
    // Not compared by age: a tie with the new lesson (the newer first on the tie rule).
    const [a, b] = await scores();
    expect(a).toBe(b);
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('evergreen: true\n', ''));
    expect((await order('websocket handshake retry'))[0]).toBe('kb-0002');
    kbJson({ decay: { by_type: { lesson_learned: 0 } } });
    // Equal scores: the newer first again, on the tie rule alone.
    const r = (await searchEntries({ settings: readSettings({ HOME: os.tmpdir() }), data: dir, queries: ['websocket handshake retry'], now: NOW })).results;
    expect(r[0]!.score).toBe(r[1]!.score);
  });
  it('an old lesson that alone answers keeps its place above an evergreen entry that matches less', async () => {
    put('kb-0007', { title: 'Flaky websocket handshake on the staging proxy', type: 'lesson_learned', updated: daysAgo(900) }, 'The staging proxy drops the websocket upgrade header: set proxy_set_header Upgrade.');
    put('kb-0008', { title: 'Staging proxy', type: 'factual_reference', updated: daysAgo(900) }, 'The staging proxy is nginx on port 8443.');
    expect((await order('staging proxy websocket upgrade header'))[0]).toBe('kb-0007');
  });
  it('never buries an old entry: a much better old match still wins over a weak new one', async () => {
    put('kb-0005', { title: 'Deploy checklist', type: 'lesson_learned', updated: daysAgo(1) }, 'Before a deploy, check the websocket gateway is drained and read the runbook top to bottom.');
    put('kb-0006', { title: 'Websocket handshake jitter backoff', type: 'lesson_learned', updated: daysAgo(3000) }, 'Websocket handshake: jittered backoff, capped retries, websocket close codes.');
    const ranked = await order('websocket handshake jittered backoff');
    expect(ranked).toContain('kb-0005');
    expect(ranked.indexOf('kb-0006')).toBeLessThan(ranked.indexOf('kb-0005'));
  });
});

describe('kb.json "decay"', () => {
  it('reads the defaults without a kb.json, and each setting', () => {
    fs.rmSync(path.join(dir, 'kb.json'));
    expect(readDecaySettings(dir)).toEqual(DEFAULT_DECAY);
    kbJson({ decay: { half_life_days: 60, floor: 0.25, by_type: { bookmark: 0 }, enabled: true } });
    expect(readDecaySettings(dir)).toEqual({ enabled: true, half_life_days: 60, floor: 0.25, by_type: { bookmark: 0 } });
  });
  it('refuses bad values naming the field', () => {
    for (const [decay, field] of [
      [{ half_life_days: 0 }, 'decay.half_life_days'],
      [{ floor: 2 }, 'decay.floor'],
      [{ by_type: { note: 5 } }, 'decay.by_type.note'],
      [{ by_type: { bookmark: -1 } }, 'decay.by_type.bookmark'],
      [{ enabled: 'no' }, 'decay.enabled'],
      [{ halflife: 3 }, 'decay.halflife'],
      ['fast', 'decay'],
    ] as const) {
      kbJson({ decay });
      expect(() => readDecaySettings(dir), JSON.stringify(decay)).toThrow(field);
    }
  });
});

describe('prompt hook with decay', () => {
  /** The ids the keyword signal points to for `prompt`, first first, at NOW. */
  const pointed = async (prompt: string, rebuild = true): Promise<string[]> => {
    const { reader } = rebuild ? await rebuildPromptIndex(dir) : (await updatePromptIndex(dir)) ?? (await rebuildPromptIndex(dir));
    try {
      return decide(rankKeywords(reader, analyzePrompt(prompt).keywords, undefined, 8, NOW.getTime())).fired.map((s) => s.id);
    } finally {
      reader.close();
    }
  };
  beforeEach(() => {
    // An old lesson that matches the prompt's words better, and the newer one that supersedes it.
    put('kb-0010', { title: 'Pin the node version per project with nvm', type: 'lesson_learned', updated: daysAgo(420) }, 'Each project pins its node version in .nvmrc; run nvm use in the project.');
    put('kb-0011', { title: 'Volta pins the node version now', type: 'lesson_learned', updated: daysAgo(5) }, 'We moved from nvm to Volta: volta pin node writes the version into package.json.');
  });
  const prompt = 'how do we pin the node version for a project';

  it('points to the newer lesson first, and the old one it supersedes gives way', async () => {
    kbJson({ decay: { enabled: false } });
    expect((await pointed(prompt))[0]).toBe('kb-0010');
    kbJson({});
    expect(await pointed(prompt)).toEqual(['kb-0011']);
  });
  it('still points to an old lesson that alone answers, and never lowers an evergreen one', async () => {
    fs.rmSync(path.join(dir, 'entries', 'kb-0011.md'));
    expect(await pointed(prompt)).toEqual(['kb-0010']);
    put('kb-0011', { title: 'Volta pins the node version now', type: 'lesson_learned', updated: daysAgo(5) }, 'We moved from nvm to Volta: volta pin node writes the version into package.json.');
    const f = path.join(dir, 'entries', 'kb-0010.md');
    fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace('type: lesson_learned', 'type: lesson_learned\nevergreen: true'));
    expect((await pointed(prompt))[0]).toBe('kb-0010');
  });
  it('an update from what changed stamps the changed entry; other kb.json decay settings make it rebuild', async () => {
    kbJson({});
    await pointed(prompt);
    // A change by hand: the newer lesson rewritten (an update, not a rebuild, carries its stamp in the delta).
    const f = path.join(dir, 'entries', 'kb-0011.md');
    fs.writeFileSync(f, `${fs.readFileSync(f, 'utf8')}\nAlso in CI.\n`);
    fs.utimesSync(f, new Date(), new Date(Date.now() + 5000));
    const up = await updatePromptIndex(dir);
    expect(up?.updated).toBe(true);
    expect(decide(rankKeywords(up!.reader, analyzePrompt(prompt).keywords, undefined, 8, NOW.getTime())).fired.map((s) => s.id)).toEqual(['kb-0011']);
    up!.reader.close();
    kbJson({ decay: { enabled: false } });
    expect(await updatePromptIndex(dir)).toBeUndefined();
  });
});
