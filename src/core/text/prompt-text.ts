/**
 * Contract: the prompt hook's text rules (spec/hooks.md, "Prompt hook"), as pure functions: which prompts are
 * skipped, how titles, tags, aliases and prompts become keywords (one tokenizer and one stemmer for both
 * sides, so the index and the query always agree), and which activities a prompt is about. No I/O.
 */

/** Why a prompt is skipped, or undefined when it is looked at. */
export type SkipReason = 'empty' | 'slash-command' | 'shell-command' | 'mechanical' | 'short';

/** A prompt shorter than this (after trimming) is never looked at. */
export const MIN_PROMPT_CHARS = 20;
/** A prompt with fewer keywords than this is never looked at. */
export const MIN_PROMPT_KEYWORDS = 2;
/** Only the first this-many characters of a prompt are tokenized (a pasted log adds noise, not signal). */
export const MAX_PROMPT_CHARS = 4000;

// NOTE: words that carry no topic: English function words plus the filler of prompts to a coding agent
// ("can you", "how do I", "please fix"). Tuned on bench/data/hook-prompts.json (spec/hooks.md).
const STOP = new Set(
  (
    'a about above after again against all almost also am an and any anything are aren arent around as at away back be ' +
    'because been before being below between both but by can cannot cant could couldn did didn didnt do does doesn ' +
    'doesnt doing don dont down during each either else even ever every everything few for from further get gets ' +
    'getting give given go goes going gone got had hadn has hasn have haven having he her here hers herself him ' +
    'himself his how however i id if ill im in instead into is isn isnt it its itself ive just keep keeps kind know ' +
    'let lets like ll look looks made make makes making many may maybe me might mine more most much must my myself ' +
    'need needs never new no nor not nothing now of off often ok okay on once one only onto or other others ' +
    'otherwise our ours ourselves out over own please pretty probably put quite rather re really right same say ' +
    'says see seem seems shall she should shouldn since so some something sometimes somewhere still such sure ' +
    'take tell than thank thanks that thats the their theirs them themselves then there these they thing things ' +
    'think this those though through thus to too try trying under until up upon us use used uses using ve very via ' +
    'want wants was wasn way ways we well were weren what whats whatever when where whether which while who whole ' +
    'whom whose why will with within without won wont would wouldn yes yet you youre your yours yourself ' +
    'yourselves able actually already always another anyway asked bit e.g etc even figure fine gonna good great ' +
    'guess help hey hi hmm i.e lot lots mean means okay okey sort stuff wanna ask tried work works working lol'
  ).split(/\s+/),
);

// NOTE: a prompt made only of these (plus stop words) is mechanical: it drives the session, it asks nothing.
const MECHANICAL = new Set(
  (
    'yes yep yeah y n no nope ok okay k sure continue proceed go ahead next retry again redo undo revert commit ' +
    'push pull merge ship lgtm approve approved done stop wait run rerun test tests it that this them do apply ' +
    'patch fix looks good great nice perfect thanks thank you please and now then the a an open pr build deploy ' +
    'same error failing fails still try better wrong right exactly correct agreed agree sounds cool awesome'
  ).split(/\s+/),
);

// NOTE: a short prompt that starts like a shell command is the user typing a command for the agent to run.
const SHELL_START = /^(?:git|npm|npx|pnpm|yarn|bun|node|make|cargo|go|pip|python3?|bundle|rake|rails|ls|cd|cat|docker|kubectl|gh)\s+\S+(?:\s+\S+){0,3}\s*$/i;

/** The keywords of a text: lower-cased word tokens, stop words dropped, each stemmed (order kept, repeats kept). */
export function keywords(text: string): string[] {
  const out: string[] = [];
  for (const raw of tokens(text)) {
    if (STOP.has(raw)) continue;
    const stem = stemWord(raw);
    if (stem.length < 2 || STOP.has(stem)) continue;
    out.push(stem);
  }
  return out;
}

/** The distinct keywords of a text, in first-seen order. */
export function distinctKeywords(text: string): string[] {
  return [...new Set(keywords(text))];
}

/** Lower-cased word tokens: letters and digits, with inner apostrophes dropped; pure numbers are not words. */
export function tokens(text: string): string[] {
  const out: string[] = [];
  const lower = text.toLowerCase().replace(/['’]/g, '');
  // NOTE: the Unicode-aware pattern is only compiled for text that needs it: it costs a fraction of a
  // millisecond, which the prompt path counts.
  const words = /^[\x00-\x7f]*$/.test(lower) ? lower.match(/[a-z0-9]+/g) : lower.match(/[\p{L}\p{N}]+/gu);
  for (const w of words ?? []) {
    if (w.length > 40 || /^\d+$/.test(w)) continue;
    out.push(w);
  }
  return out;
}

const VOWEL = /[aeiouy]/;

/**
 * A light suffix stemmer (plural, -ing, -ed, final -e) applied alike to the index and the prompt, so that
 * "commits", "committed" and "committing" meet "commit", and "rebasing" meets "rebase".
 */
export function stemWord(w: string): string {
  if (w.length <= 3 || /\d/.test(w)) return w;
  let s = w;
  if (s.endsWith('ies') && s.length > 4) s = `${s.slice(0, -3)}y`;
  else if (/(?:s|sh|ch|x|z)es$/.test(s)) s = s.slice(0, -2);
  else if (s.endsWith('s') && !/(?:ss|us|is|ias)$/.test(s)) s = s.slice(0, -1);
  if (s.endsWith('ing') && s.length > 5 && VOWEL.test(s.slice(0, -3))) s = undouble(s.slice(0, -3));
  else if (s.endsWith('ed') && s.length > 4 && VOWEL.test(s.slice(0, -2))) s = undouble(s.slice(0, -2));
  if (s.endsWith('e') && s.length > 3) s = s.slice(0, -1);
  return s;
}

function undouble(s: string): string {
  return /([bdfgmnprtz])\1$/.test(s) ? s.slice(0, -1) : s;
}

/** The index keywords of a tag: the whole tag (when it is one word) and each of its parts. */
export function tagKeywords(tag: string): string[] {
  const out = new Set<string>();
  for (const part of tokens(tag)) {
    const stem = stemWord(part);
    if (stem.length >= 2) out.add(stem);
  }
  return [...out];
}

/** A prompt looked at: why it is skipped, or its distinct keywords. */
export interface PromptAnalysis {
  skip?: SkipReason;
  keywords: string[];
  /** The prompt's word tokens (for classifyActivities). */
  words: string[];
}

/** Applies the skip rules of spec/hooks.md ("Skip rules") and extracts the keywords of a prompt. */
export function analyzePrompt(prompt: string): PromptAnalysis {
  const p = prompt.slice(0, MAX_PROMPT_CHARS).trim();
  if (!p) return { skip: 'empty', keywords: [], words: [] };
  if (p.startsWith('/')) return { skip: 'slash-command', keywords: [], words: [] };
  if (p.startsWith('!') || (p.length < 120 && SHELL_START.test(p))) return { skip: 'shell-command', keywords: [], words: [] };
  const words = tokens(p);
  if (words.length > 0 && words.every((w) => MECHANICAL.has(w) || STOP.has(w))) return { skip: 'mechanical', keywords: [], words };
  if (p.length < MIN_PROMPT_CHARS) return { skip: 'short', keywords: [], words };
  const kws = new Set<string>();
  for (const w of words) {
    if (STOP.has(w)) continue;
    const stem = stemWord(w);
    if (stem.length >= 2 && !STOP.has(stem)) kws.add(stem);
  }
  if (kws.size < MIN_PROMPT_KEYWORDS) return { skip: 'short', keywords: [...kws], words };
  return { keywords: [...kws], words };
}

/** Why a prompt should be skipped, or undefined to look at it. */
export function skipReason(prompt: string): SkipReason | undefined {
  return analyzePrompt(prompt).skip;
}

/** The activities an entry's `applies_to` can name. */
export type PromptActivity = 'writing' | 'reviewing' | 'planning' | 'coding';

// NOTE: trigger words per activity, matched on stems. Extend a list when an activity pointer should have
// fired and did not.
const ACTIVITY_LEXICON: Record<PromptActivity, string[]> = {
  writing: [
    'write', 'rewrite', 'reword', 'draft', 'proofread', 'edit', 'prose', 'doc', 'documentation', 'readme', 'blog',
    'article', 'post', 'email', 'reply', 'respond', 'message', 'comment', 'description', 'changelog', 'announcement',
    'letter', 'essay', 'summary', 'summarize', 'tone', 'wording', 'copy', 'paragraph', 'sentence', 'tweet',
  ],
  reviewing: ['review', 'reviewer', 'critique', 'feedback', 'audit', 'pr', 'diff', 'approve', 'nitpick', 'lgtm', 'assess', 'evaluate'],
  planning: [
    'plan', 'planning', 'design', 'roadmap', 'architecture', 'architect', 'proposal', 'propose', 'spec', 'estimate',
    'milestone', 'strategy', 'prioritize', 'scope', 'outline', 'rfc', 'breakdown', 'itinerary',
  ],
  coding: [
    'code', 'implement', 'refactor', 'function', 'bug', 'debug', 'compile', 'build', 'test', 'unit', 'class', 'method',
    'api', 'endpoint', 'script', 'error', 'exception', 'stack', 'trace', 'crash', 'fix', 'typescript', 'javascript',
    'python', 'rust', 'go', 'ruby', 'sql', 'query', 'migration', 'deploy', 'lint', 'type', 'module', 'import',
  ],
};

const ACTIVITY_STEMS: [PromptActivity, Set<string>][] = (Object.entries(ACTIVITY_LEXICON) as [PromptActivity, string[]][]).map(([a, words]) => [
  a,
  new Set(words.map(stemWord)),
]);

/** The activities a prompt is about, from its words (none, one or several); `words` are its tokens if known. */
export function classifyActivities(prompt: string, words?: string[]): PromptActivity[] {
  const stems = new Set((words ?? tokens(prompt.slice(0, MAX_PROMPT_CHARS))).map(stemWord));
  const out: PromptActivity[] = [];
  for (const [activity, words] of ACTIVITY_STEMS) {
    for (const s of stems) {
      if (words.has(s)) {
        out.push(activity);
        break;
      }
    }
  }
  return out;
}
