/**
 * Contract: the first words of the reflection child's prompt (src/core/reflect/prompt.ts). A transcript that opens
 * with them is git-kb's own child, never summarised or reflected on (src/core/sessions/summary.ts). Imports nothing.
 */
export const REFLECT_OPENING = 'You review a finished coding session for a personal knowledge base';
