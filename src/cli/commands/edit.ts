/** `edit`: change an entry in place (spec/cli.md). */
import type { Command } from 'commander';
import { KbError } from '../../core/errors.js';
import { idArgument, TYPES } from '../../core/format/schema.js';
import * as render from '../render/entries.js';
import { entryOverWarning, kernelOverWarning } from '../render/memory.js';
import { type Cli, collect, readFileArg, repoOptions } from '../io.js';
import { unknownChoice } from '../../core/text/suggest.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('edit', 'change an entry in place (with no change flags: in $VISUAL/$EDITOR), print the diff, and commit')
    .argument('<id>', 'entry id')
    .option('--title <title>', 'new title')
    .option('--type <type>', 'new type')
    .option('--tags <list>', 'replace the tags')
    .option('--add-tag <tag>', 'add a tag (repeatable)', collect)
    .option('--remove-tag <tag>', 'remove a tag (repeatable)', collect)
    .option('--link <rel:id>', 'add a link (repeatable)', collect)
    .option('--unlink <id>', 'remove links to this id (repeatable)', collect)
    .option('--url <url>', 'set the URL')
    .option('--applies-to <list>', 'set the activities')
    .option('--kernel', 'make it a kernel entry')
    .option('--no-kernel', 'make it an ordinary entry')
    .option('--rule <rule>', "add a prose rule the gate enforces on a kernel entry: 'PATTERN => MESSAGE' or '/PATTERN/FLAGS => MESSAGE'; one with the same pattern is replaced (repeatable)", collect)
    .option('--remove-rule <pattern>', 'remove the rule with this pattern (repeatable)', collect)
    .option('--aliases <list>', 'replace the aliases')
    .option('--pattern-key <key>', "set the lesson's slug (a later add --pattern-key records a recurrence here; '' removes it)")
    .option('--body <text>', 'replace the body')
    .option('--append <text>', 'append a paragraph to the body')
    .option('--file <path>', 'replace the body with a file (- for stdin)')
    .action(async (arg: string, o: Record<string, unknown>, cmd: Command) => {
      const id = idArgument(arg);
      const repo = repoOptions(ctx, cmd);
      const bodies = ['body', 'append', 'file'].filter((k) => o[k] !== undefined);
      if (bodies.length > 1) throw new KbError('USAGE', `--${bodies.join(' and --')} cannot be combined; use one`);
      if (o.type !== undefined && !(TYPES as readonly string[]).includes(o.type as string)) throw unknownChoice('--type', String(o.type), TYPES);
      const kernelSet = cmd.getOptionValueSource('kernel') === 'cli';
      const flags = ['title', 'type', 'tags', 'addTag', 'removeTag', 'link', 'unlink', 'url', 'appliesTo', 'aliases', 'patternKey', 'body', 'append', 'file', 'rule', 'removeRule'];
      if (!kernelSet && flags.every((k) => o[k] === undefined)) {
        // No change flags: the editor flow (src/cli/editor.ts), like `git commit`.
        const { entryForEditor, saveEditedText } = await import('../../app/edit.js');
        const { editLoop } = await import('../editor.js');
        const cur = await entryForEditor({ ...repo, id });
        const r = await editLoop({
          text: cur.text,
          name: cur.path.split('/').pop()!,
          settings: ctx.settings,
          what: 'edit with no change flags',
          save: (after) => saveEditedText({ ...repo, id, before: cur.text, after }),
        });
        ctx.reply({ json: r, text: () => render.edit(r), warnings: [...kernelOverWarning(r.kernel_over), ...entryOverWarning(r.entry_over)] });
        return;
      }
      const { editEntry } = await import('../../app/edit.js');
      const r = await editEntry({
        ...repo,
        id,
        title: o.title as string | undefined,
        type: o.type as string | undefined,
        tags: o.tags as string | undefined,
        addTags: o.addTag as string[] | undefined,
        removeTags: o.removeTag as string[] | undefined,
        links: o.link as string[] | undefined,
        unlink: o.unlink as string[] | undefined,
        url: o.url as string | undefined,
        appliesTo: o.appliesTo as string | undefined,
        kernel: kernelSet ? (o.kernel as boolean) : undefined,
        aliases: o.aliases as string | undefined,
        patternKey: o.patternKey as string | undefined,
        body: o.file !== undefined ? readFileArg(o.file as string) : (o.body as string | undefined),
        append: o.append as string | undefined,
        ruleArgs: o.rule as string[] | undefined,
        removeRules: o.removeRule as string[] | undefined,
      });
      ctx.reply({ json: r, text: () => render.edit(r), warnings: [...kernelOverWarning(r.kernel_over), ...entryOverWarning(r.entry_over)] });
    });
}
