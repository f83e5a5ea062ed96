/** `import`: a folder of notes in one commit (spec/cli.md). */
import type { Command } from 'commander';
import * as render from '../render/entries.js';
import { progressBar } from '../render/progress.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('import', 'import a folder of markdown notes in one commit')
    .argument('<dir>', 'folder of .md notes')
    .option('--type <type>', 'type for every note (default: its own, else factual_reference)')
    .option('--tags-from-folders', 'tag each note with the folders it sits in')
    .option('--skip-invalid', 'import the valid notes and report the rest (never for secrets)')
    .option('--redact', 'replace secret-shaped content with [REDACTED:kind] markers instead of refusing')
    .action(async (source: string, o: { type?: string; tagsFromFolders?: boolean; skipInvalid?: boolean; redact?: boolean }, cmd: Command) => {
      const { importNotes } = await import('../../app/import.js');
      const progress = progressBar('importing');
      const r = await importNotes({ ...repoOptions(ctx, cmd), source, ...o, onProgress: progress.update });
      progress.done();
      ctx.reply({ json: r, text: () => render.imported(r) });
    });
}
