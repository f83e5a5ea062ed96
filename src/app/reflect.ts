/**
 * Contract: reflection (spec/reflect.md). After a session that did real work, one model child proposes host facts
 * and lessons from the session's redacted text; each proposal passes the filters code can check (its shape, no
 * forbidden host or pattern, no secret, its quote found in the session text, not obvious, a registered host the
 * session named, not already known, within the host's budget) or is dropped with its reason. The kept ones land in
 * ONE commit through the write transaction, through the same file-making steps as `host add` (newFactFile) and `add`
 * (newEntryFile; a known pattern key: recurrenceFile), with a message naming the session. A session that touched a
 * forbidden host or global pattern gets no model call at all. `auto` (the hooks' worker) runs only when the
 * session's reflection state says it is due, so a session costs at most one model call; any run but a dry run
 * records that state. Plain data out: the CLI prints it, the worker logs it.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { findClaude } from '../adapters/claude/find-claude.js';
import { loadCatalog, type EntryMeta } from '../adapters/index/catalog.js';
import { loadHosts } from '../adapters/store/hosts-file.js';
import { readEntryText } from '../adapters/store/layout.js';
import { readRepoSettings } from '../adapters/store/repo-settings.js';
import { readReflectState, readSessionState, reflectionDue, writeReflectState } from '../adapters/store/session-state.js';
import { withWriteLock, type PendingFile } from '../adapters/write/transaction.js';
import { KbError } from '../core/errors.js';
import { patternKeyOf } from '../core/format/learning.js';
import { findHost, forbiddenMatch, forbiddenMatcher, hostMatcher, matchHosts, type HostRegistry } from '../core/hosts/hosts.js';
import { isRealWork, reflectMaterial, type ReflectMaterial } from '../core/reflect/material.js';
import { buildReflectPrompt, type KnownHost } from '../core/reflect/prompt.js';
import { coverage, KNOWN_COVERAGE, loose, obviousReason, quoteFound, reflectAnswer, type Proposal } from '../core/reflect/proposals.js';
import { findSecrets, redactSecrets } from '../core/secrets/scan.js';
import { OWN_PROMPT_PREFIXES, transcriptScrubber } from '../core/sessions/summary.js';
import { patternKeyHolder, recurrenceFile } from './learnings.js';
import { repoForRead, type RepoOptions } from './repo.js';
import { isSummaryRef, loadTranscript, projectsDir, refreshIndexAfterWrite, sessionForbidden } from './session.js';

/** The reflection model when KB_REFLECT_MODEL is not set. */
export const DEFAULT_REFLECT_MODEL = 'sonnet';
/** The tag every entry reflection writes carries (`git-kb list --tag reflection`). */
export const REFLECT_TAG = 'reflection';
/** How much of a quote an entry's body keeps as its source. */
const QUOTE_IN_BODY = 200;

export interface ReflectOptions extends RepoOptions {
  /** The transcript; else the one the session's state names, else `<projects>/*\/<session>.jsonl`. */
  transcript?: string;
  sessionId?: string;
  /** The data repo, already resolved (the worker); else resolved from `data` (it must exist). */
  dir?: string;
  /** Propose and filter, write nothing (no commit, no state). */
  dryRun?: boolean;
  /** The hooks' worker: run only when the session's reflection state says it is due. */
  auto?: boolean;
  now?: Date;
}

/** One proposal and what became of it. Text of a proposal dropped for a secret is redacted; for a forbidden host, withheld. */
export interface ProposalReport {
  kind: string;
  host?: string;
  title: string;
  text: string;
  quote: string;
  pattern_key?: string;
  decision: 'kept' | 'dropped';
  /** Kept: `new host fact`, `new lesson`, `recurrence of <id>`; dropped: why (spec/reflect.md, "Filters"). */
  reason: string;
  /** The entry written (kept, after the commit) or recurred on. */
  id?: string;
  path?: string;
}

export interface ReflectResult {
  status: 'reflected' | 'dry-run' | 'skipped' | 'forbidden' | 'error';
  sessionId?: string;
  transcript?: string;
  /** Why nothing was proposed (skipped, forbidden, error). Never quotes forbidden text. */
  reason?: string;
  model?: string;
  proposals: ProposalReport[];
  kept: { host_facts: number; lessons: number; recurrences: number };
  commit?: string;
  /** Compactions asked for: a host whose budget a kept fact would have passed (`/git-kb compact host:KEY`). */
  compact: string[];
  redactions?: number;
  /** Set when the status is forbidden. */
  exit?: 'FORBIDDEN_HOST';
}

/**
 * The transcript of a session and the session's id: the given path; or, for a session given by its id, a unique
 * prefix of 8 or more characters of it, or its summary's entry id (as `session show` takes them), the transcript
 * its summary state recorded, or one found by its file name under Claude Code's projects folder.
 */
async function transcriptOf(dir: string, options: ReflectOptions): Promise<{ file: string; sessionId?: string }> {
  const given = options.sessionId?.trim();
  if (options.transcript) return { file: options.transcript, sessionId: given };
  if (!given) throw new KbError('USAGE', 'reflect needs --session ID or --transcript PATH');
  let id = given;
  if (isSummaryRef(id)) {
    const e = (await loadCatalog(dir)).byId.get(id);
    if (!e || e.type !== 'session_summary' || typeof e.data.session_id !== 'string') throw new KbError('NOT_FOUND', `${id} is not a session summary: give a session id, a session summary's entry id, or --transcript PATH`, { id });
    id = e.data.session_id;
  }
  const known = readSessionState(dir, id)?.transcript;
  if (known && fs.existsSync(known)) return { file: known, sessionId: id };
  const root = projectsDir(options.settings);
  let projects: string[] = [];
  try {
    projects = fs.readdirSync(root);
  } catch {
    /* no transcripts folder */
  }
  const found = new Map<string, string>();
  for (const p of projects) {
    const exact = path.join(root, p, `${id}.jsonl`);
    if (fs.existsSync(exact)) return { file: exact, sessionId: id };
    let names: string[] = [];
    try {
      names = fs.readdirSync(path.join(root, p));
    } catch {
      /* not a folder */
    }
    for (const n of names) if (n.startsWith(id) && n.endsWith('.jsonl')) found.set(n.slice(0, -6), path.join(root, p, n));
  }
  if (found.size > 1) throw new KbError('USAGE', `session id prefix ${id} matches ${found.size} transcripts (${[...found.keys()].slice(0, 3).join(', ')}${found.size > 3 ? ', ...' : ''}); give more characters`);
  const [only] = found;
  if (only) return { file: only[1], sessionId: only[0] };
  throw new KbError('NOT_FOUND', `no transcript of session ${id} (looked in ${root}); pass --transcript PATH`);
}

/** A kept proposal's body: its text, then the session and the quote it came from. */
function bodyOf(p: Proposal, sessionId: string): string {
  const q = p.quote.replace(/\s+/g, ' ').trim();
  const quote = q.length > QUOTE_IN_BODY ? `${q.slice(0, QUOTE_IN_BODY - 1)}…` : q;
  return `${p.text.trim()}\n\nFrom session ${sessionId}: "${quote}"`;
}

/** Everything of a proposal that would be stored or shown. */
function allText(p: Proposal): string {
  return [p.title, p.text, p.quote, p.host ?? '', p.pattern_key ?? ''].join('\n');
}

interface Known {
  id: string;
  text: string;
}

/** A proposal kept by the filters, its report, and the entry it recurs on (a lesson whose pattern key is known). */
type Kept = { p: Proposal; report: ProposalReport; recurOn?: EntryMeta };

/** The filtering of one reflection's proposals against the repo (filters 1 and the budget need the repo). */
class Sieve {
  private readonly looseText: string;
  private readonly hostFacts = new Map<string, Known[]>();
  private readonly hostChars = new Map<string, number>();
  private readonly keptLessons: Known[] = [];
  private readonly recurring = new Set<string>();
  readonly compact = new Set<string>();

  constructor(
    private readonly dir: string,
    private readonly options: ReflectOptions,
    private readonly sessionId: string,
    private readonly registry: HostRegistry,
    private readonly named: Set<string>,
    private readonly material: ReflectMaterial,
    private readonly catalog: EntryMeta[],
    private readonly budget: number,
  ) {
    this.looseText = loose(material.text);
    for (const e of catalog) {
      if (!e.host) continue;
      this.hostChars.set(e.host, (this.hostChars.get(e.host) ?? 0) + e.bodyLength);
    }
  }

  private factsOf(key: string): Known[] {
    let list = this.hostFacts.get(key);
    if (!list) {
      list = this.catalog.filter((e) => e.host === key).map((e) => ({ id: e.id, text: `${e.title}\n${readEntryText(this.dir, e.path)}` }));
      this.hostFacts.set(key, list);
    }
    return list;
  }

  /** What becomes of one proposal: kept (with a recurrence target) or the reason it is dropped. */
  async judge(p: Proposal): Promise<{ keep: true; recurOn?: EntryMeta } | { keep: false; reason: string }> {
    const drop = (reason: string) => ({ keep: false as const, reason });
    if (!quoteFound(p.quote, this.looseText)) return drop('quote not in the transcript');
    const obvious = obviousReason(p, this.material.helpTexts, this.looseText);
    if (obvious) return drop(obvious);
    if (p.kind === 'host_fact') return this.judgeFact(p);
    return this.judgeLesson(p);
  }

  private judgeFact(p: Proposal): { keep: true } | { keep: false; reason: string } {
    const host = findHost(this.registry, p.host!);
    if (!host) return { keep: false, reason: `unknown host "${p.host}" (not in hosts.yaml)` };
    if (!this.named.has(host.key)) return { keep: false, reason: `host ${host.key} is not named in the session` };
    p.host = host.key;
    const facts = this.factsOf(host.key);
    const same = facts.find((f) => coverage(p.text, f.text) >= KNOWN_COVERAGE);
    if (same) return { keep: false, reason: same.id ? `known: ${same.id}` : 'known: same as an earlier proposal' };
    const chars = (this.hostChars.get(host.key) ?? 0) + bodyOf(p, this.sessionId).length;
    if (chars > this.budget) {
      this.compact.add(`/git-kb compact host:${host.key}`);
      return { keep: false, reason: `over budget: host ${host.key} would hold ${chars} of ${this.budget} characters (compact it: /git-kb compact host:${host.key})` };
    }
    this.hostChars.set(host.key, chars);
    facts.push({ id: '', text: `${p.title}\n${p.text}` });
    return { keep: true };
  }

  private async judgeLesson(p: Proposal): Promise<{ keep: true; recurOn?: EntryMeta } | { keep: false; reason: string }> {
    const recurOn = (e: EntryMeta): { keep: true; recurOn: EntryMeta } | { keep: false; reason: string } => {
      if (this.recurring.has(e.id)) return { keep: false, reason: `known: ${e.id} (recurs once per reflection)` };
      if (readEntryText(this.dir, e.path).includes(`session ${this.sessionId}`)) return { keep: false, reason: `known: ${e.id} (already recorded from this session)` };
      this.recurring.add(e.id);
      return { keep: true, recurOn: e };
    };
    const keyed = patternKeyHolder(this.catalog, p.pattern_key!);
    if (keyed) return recurOn(keyed);
    const earlier = this.keptLessons.find((k) => coverage(p.text, k.text) >= KNOWN_COVERAGE);
    if (earlier) return { keep: false, reason: 'known: same as an earlier proposal' };
    // Filter 1 through search, as a user would look: the proposal's title and text as two queries.
    const { searchEntries } = await import('./search.js');
    const { results } = await searchEntries({ data: this.dir, settings: this.options.settings, queries: [p.title, p.text], limit: 5, now: this.options.now });
    for (const hit of results) {
      const e = this.catalog.find((c) => c.id === hit.id);
      if (!e || e.type === 'session_summary') continue;
      if (coverage(p.text, `${e.title}\n${readEntryText(this.dir, e.path)}`) < KNOWN_COVERAGE) continue;
      return patternKeyOf(e) ? recurOn(e) : { keep: false, reason: `known: ${e.id}` };
    }
    this.keptLessons.push({ id: '', text: `${p.title}\n${p.text}` });
    return { keep: true };
  }
}

const noneKept = (): ReflectResult['kept'] => ({ host_facts: 0, lessons: 0, recurrences: 0 });

/** Reflects on one session (see the module contract). */
export async function reflectSession(options: ReflectOptions): Promise<ReflectResult> {
  const dir = options.dir ?? repoForRead(options).dir;
  const found = await transcriptOf(dir, options);
  const { file, st, facts } = loadTranscript(found.file);
  const sessionId = found.sessionId || facts.sessionId;
  const base = { sessionId, transcript: file, proposals: [] as ProposalReport[], kept: noneKept(), compact: [] as string[] };
  if (!sessionId) return { ...base, status: 'skipped', reason: 'the transcript has no session id' };
  const record = (outcome: string, commit?: string): void => {
    if (!options.dryRun) writeReflectState(dir, { sessionId, at: Date.now(), size: st.size, outcome, ...(commit ? { commit } : {}) });
  };
  const skip = (reason: string): ReflectResult => {
    record(`skipped:${reason}`);
    return { ...base, status: 'skipped', reason };
  };
  if (options.auto && !reflectionDue(readReflectState(dir, sessionId))) return { ...base, status: 'skipped', reason: 'already reflected' };
  if (!options.settings.reflect) return skip('reflection is off (KB_REFLECT=0)');
  if (OWN_PROMPT_PREFIXES.some((p) => (facts.firstPrompt ?? facts.prompts[0] ?? '').startsWith(p))) return skip('a git-kb model child');

  // Fail closed: a hosts.yaml that does not load stops here with its error (the forbidden hosts cannot be told).
  const registry = await loadHosts(dir);
  const matcher = forbiddenMatcher(registry);
  if (sessionForbidden(matcher, file, sessionId, facts)) {
    record('forbidden');
    return { ...base, status: 'forbidden', reason: 'the transcript mentions a forbidden host or pattern; no reflection', exit: 'FORBIDDEN_HOST' };
  }
  const material = reflectMaterial(facts, transcriptScrubber(facts));
  if (!isRealWork(material.work)) return skip('no real work (no command run, no file changed, fewer than 3 tool calls)');
  const claude = findClaude(options.settings.reflectClaude, options.settings.path);
  if (!claude) return skip(`no ${options.settings.reflectClaude ?? 'claude'} executable for the reflection child`);

  const catalog = [...(await loadCatalog(dir)).byId.values()];
  const named = new Set(matchHosts(hostMatcher(registry), material.text));
  const hosts: KnownHost[] = [...named].map((key) => ({ key, facts: catalog.filter((e) => e.host === key).map((e) => e.title) }));
  const model = options.settings.reflectModel?.trim() || DEFAULT_REFLECT_MODEL;
  const prompt = buildReflectPrompt({ material: material.text, hosts, nonce: crypto.randomBytes(6).toString('hex') });
  record('running');
  const { runReflectChild } = await import('../adapters/claude/reflect.js');
  const answer = reflectAnswer(await runReflectChild({ claude, model, timeoutMs: options.settings.reflectTimeoutMs, prompt, env: options.settings.env }));
  const withModel = { ...base, model, redactions: material.redactions };
  if (answer.kind === 'error') {
    record('error');
    return { ...withModel, status: 'error', reason: answer.reason };
  }

  const sieve = new Sieve(dir, options, sessionId, registry, named, material, catalog, readRepoSettings(dir).budgets.host_chars);
  const reports: ProposalReport[] = [];
  const keep: Kept[] = [];
  for (const shaped of answer.proposals) {
    if ('malformed' in shaped) {
      const r = shaped.raw;
      const s = (v: unknown): string => redactSecrets(typeof v === 'string' ? v : '').text;
      // NOTE: a malformed proposal's text is shown only when it names nothing forbidden, and always redacted.
      const shown = forbiddenMatch(matcher, [r.title, r.text, r.quote, r.host].map(s).join('\n')) ? { title: '(withheld)', text: '(withheld)', quote: '(withheld)' } : { title: s(r.title), text: s(r.text), quote: s(r.quote) };
      reports.push({ kind: s(r.kind) || '?', ...shown, decision: 'dropped', reason: `malformed: ${shaped.malformed}` });
      continue;
    }
    const p = shaped.proposal;
    const report: ProposalReport = { kind: p.kind, ...(p.host ? { host: p.host } : {}), title: p.title, text: p.text, quote: p.quote, ...(p.pattern_key ? { pattern_key: p.pattern_key } : {}), decision: 'dropped', reason: '' };
    reports.push(report);
    // Forbidden first: such a proposal is never shown, not even redacted.
    const hostDef = p.host ? findHost(registry, p.host) : undefined;
    if (hostDef?.forbidden || forbiddenMatch(matcher, allText(p))) {
      Object.assign(report, { title: '(withheld)', text: '(withheld)', quote: '(withheld)', reason: 'forbidden host or pattern' });
      delete report.host;
      delete report.pattern_key;
      continue;
    }
    const secrets = findSecrets(allText(p));
    if (secrets.length > 0) {
      const kinds = [...new Set(secrets.map((f) => f.kind))].join(', ');
      const red = (v: string): string => redactSecrets(v).text;
      Object.assign(report, { title: red(p.title), text: red(p.text), quote: red(p.quote), reason: `secret (${kinds})` });
      if (report.host) report.host = red(report.host);
      if (report.pattern_key) report.pattern_key = red(report.pattern_key);
      continue;
    }
    const verdict = await sieve.judge(p);
    if (!verdict.keep) {
      report.reason = verdict.reason;
      continue;
    }
    if (p.host) report.host = p.host;
    report.decision = 'kept';
    report.reason = verdict.recurOn ? `recurrence of ${verdict.recurOn.id}` : p.kind === 'host_fact' ? 'new host fact' : 'new lesson';
    if (verdict.recurOn) report.id = verdict.recurOn.id;
    keep.push({ p, report, ...(verdict.recurOn ? { recurOn: verdict.recurOn } : {}) });
  }
  const result: ReflectResult = { ...withModel, status: options.dryRun ? 'dry-run' : 'reflected', proposals: reports, kept: keptCounts(keep), compact: [...sieve.compact] };
  if (options.dryRun || keep.length === 0) {
    record('reflected');
    return result;
  }
  const written = await commitKept(dir, options, sessionId, keep);
  result.kept = written.kept;
  if (written.commit) result.commit = written.commit;
  record('reflected', written.commit);
  if (written.commit) await refreshIndexAfterWrite(dir);
  return result;
}


function keptCounts(keep: Kept[]): ReflectResult['kept'] {
  return {
    host_facts: keep.filter((k) => k.p.kind === 'host_fact').length,
    lessons: keep.filter((k) => k.p.kind === 'lesson' && !k.recurOn).length,
    recurrences: keep.filter((k) => k.recurOn).length,
  };
}

/** The commit message: `reflect <session>: N host facts, M lessons[, K recurrences]`, one line per entry after. */
function commitMessage(sessionId: string, kept: ReflectResult['kept'], lines: string[]): string {
  const n = (count: number, one: string, many: string): string => `${count} ${count === 1 ? one : many}`;
  const parts = [n(kept.host_facts, 'host fact', 'host facts'), n(kept.lessons, 'lesson', 'lessons')];
  if (kept.recurrences) parts.push(n(kept.recurrences, 'recurrence', 'recurrences'));
  return `reflect ${sessionId}: ${parts.join(', ')}\n\n${lines.join('\n')}\n`;
}

/**
 * Writes the kept proposals in one commit, through the file-making steps of `host add`, `add` and recurrences. A
 * proposal those steps refuse (an entry that would not validate) is dropped with the refusal's code, the rest land.
 */
async function commitKept(dir: string, options: ReflectOptions, sessionId: string, keep: Kept[]): Promise<{ commit?: string; kept: ReflectResult['kept'] }> {
  const now = options.now ?? new Date();
  const { newFactFile } = await import('./host.js');
  const { newEntryFile } = await import('./add.js');
  const { idSet } = await import('./find.js');
  return withWriteLock(dir, async (tx) => {
    const taken = idSet(dir);
    const existing = new Set(taken);
    const files: PendingFile[] = [];
    const lines: string[] = [];
    const landed: Kept[] = [];
    for (const k of keep) {
      const { p, report, recurOn } = k;
      const body = bodyOf(p, sessionId);
      let made: { path: string; content: string; id: string; line: string };
      try {
        if (recurOn) {
          const f = await recurrenceFile(dir, recurOn, body, existing, now);
          made = { ...f, id: recurOn.id, line: `- recur ${recurOn.id}: ${recurOn.title} (seen ${f.count} times)` };
        } else if (p.kind === 'host_fact') {
          const f = await newFactFile(taken, { key: p.host!, title: p.title, body, tags: [REFLECT_TAG], now });
          made = { ...f, line: `- host ${p.host}: add ${f.id}: ${p.title}` };
        } else {
          const ids = { has: (id: string) => existing.has(id), pathOf: () => undefined };
          const f = await newEntryFile(dir, ids, { type: 'lesson_learned', title: p.title, body, tags: [REFLECT_TAG], patternKey: p.pattern_key, settings: options.settings }, now, taken);
          made = { ...f, line: `- add ${f.id}: ${p.title}` };
        }
      } catch (err) {
        if (!(err instanceof KbError)) throw err;
        // NOTE: the code only: a refusal's message may quote the entry.
        Object.assign(report, { decision: 'dropped', reason: `refused by the write checks (${err.code})` });
        delete report.id;
        continue;
      }
      files.push({ path: made.path, content: made.content });
      Object.assign(report, { id: made.id, path: made.path });
      lines.push(made.line);
      landed.push(k);
    }
    const kept = keptCounts(landed);
    if (files.length === 0) return { kept };
    return { commit: await tx.commit(files, commitMessage(sessionId, kept, lines)), kept };
  }, { identity: options.settings });
}
