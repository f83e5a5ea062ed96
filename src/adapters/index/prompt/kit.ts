/**
 * Contract: the hot-path functions the index builder needs, handed to it as one object. The builder
 * (prompt-build.ts) is loaded only when the index is rebuilt and imports none of the hot-path modules itself,
 * so the bundler keeps them all in the prompt handler's own chunk: every extra module a cold process loads
 * costs about a millisecond, which the prompt path cannot spare.
 */
import { catalogCacheFile, indexFile, keyDirs, promptStateDir, repoKey, sigOf, statSig } from '../fresh.js';
import { encodeIndex, FIELD_ALIAS, FIELD_TAG, FIELD_TITLE, HOT_SIZE, readerFromBuffer } from './format.js';
import { PROMPT_SIGNALS } from '../../../hooks/prompt/signals.js';
import { keywords, tagKeywords } from '../../../core/text/prompt-text.js';

export const PROMPT_KIT = {
  catalogCacheFile,
  indexFile,
  keyDirs,
  promptStateDir,
  repoKey,
  sigOf,
  statSig,
  encodeIndex,
  readerFromBuffer,
  FIELD_ALIAS,
  FIELD_TAG,
  FIELD_TITLE,
  HOT_SIZE,
  signals: PROMPT_SIGNALS,
  keywords,
  tagKeywords,
};

export type PromptKit = typeof PROMPT_KIT;
