/** `adopt`: markdown notes made outside git-kb become entries in place (spec/cli.md). */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { TYPES } from '../../core/format/schema.js';
import * as render from '../render/entries.js';
import { type Cli, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('adopt', 'make markdown notes with no front matter (e.g. entries/Untitled.md from Obsidian) entries, in one commit')
    .argument('[path...]', 'the notes (default: every note in an entry folder whose name has no id)')
    .option('--type <type>', `the type (default: the note's own, else factual_reference; one of ${TYPES.join(', ')})`)
    .action(async (paths: string[], o: { type?: string }, cmd: Command) => {
      // A path is relative to the current folder when a file is there, else to the data repo.
      const resolved = paths.map((p) => (path.isAbsolute(p) || !fs.existsSync(p) ? p : path.resolve(p)));
      const { adoptNotes } = await import('../../app/adopt.js');
      const r = await adoptNotes({ ...repoOptions(ctx, cmd), paths: resolved, type: o.type });
      ctx.reply({ json: r, text: () => render.adopted(r) });
    });
}
