/**
 * Contract: the prompt hook's text rules (spec/hooks.md, "Prompt hook"), as pure functions: which prompts are
 * skipped, how titles, tags, aliases, bodies and prompts become keywords (terms.ts with PROMPT_TERMS on both sides, so
 * the index and the prompt always agree, and search stems alike), and which activities a prompt is about. No I/O.
 */
import { cjkChars, PROMPT_STOP_WORDS, PROMPT_TERMS, stem, termOf, terms, tokenize } from './terms.js';

/** Why a prompt is skipped, or undefined when it is looked at. */
export type SkipReason = 'empty' | 'slash-command' | 'shell-command' | 'mechanical' | 'short';

/** A prompt shorter than this (after trimming) is never looked at. */
export const MIN_PROMPT_CHARS = 20;
/** A prompt with fewer keywords than this is never looked at. */
export const MIN_PROMPT_KEYWORDS = 2;
/** Only the first this-many characters of a prompt are tokenized (a pasted log adds noise, not signal). */
export const MAX_PROMPT_CHARS = 4000;

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

/** The keywords of a text: its terms under PROMPT_TERMS (order kept, repeats kept). */
export function keywords(text: string): string[] {
  return terms(text, PROMPT_TERMS);
}

/** The index keywords of a tag: the whole tag (when it is one word) and each of its parts. */
export function tagKeywords(tag: string): string[] {
  const out = new Set<string>();
  // NOTE: no stop words here: a tag is a topic by choice, even one spelt like filler ("go", "help").
  for (const part of tokenize(tag, false)) {
    const s = stem(part);
    if (s.length >= 2) out.add(s);
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
  const words = tokenize(p, PROMPT_TERMS.numbers);
  if (words.length > 0 && words.every((w) => MECHANICAL.has(w) || PROMPT_STOP_WORDS.has(w))) return { skip: 'mechanical', keywords: [], words };
  // NOTE: a CJK character counts three: "デプロイの手順を教えて" (11 characters) is no short prompt.
  if (p.length < MIN_PROMPT_CHARS && p.length + 2 * cjkChars(p) < MIN_PROMPT_CHARS) return { skip: 'short', keywords: [], words };
  const kws = new Set<string>();
  for (const w of words) {
    const k = termOf(w, PROMPT_TERMS);
    if (k !== undefined) kws.add(k);
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
  new Set(words.map(stem)),
]);

/** The activities a prompt is about, from its words (none, one or several); `words` are its tokens if known. */
export function classifyActivities(prompt: string, words?: string[]): PromptActivity[] {
  const stems = new Set((words ?? tokenize(prompt.slice(0, MAX_PROMPT_CHARS), PROMPT_TERMS.numbers)).map(stem));
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
