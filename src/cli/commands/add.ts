/** `add`: a new entry (spec/cli.md). */
import { type Command, Option } from 'commander';
import { KbError } from '../../core/errors.js';
import * as render from '../render/entries.js';
import { type Cli, collect, readFileArg, readStdinIfPiped, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('add', 'add an entry (body from BODY, --file, or stdin) and commit it')
    .argument('[body...]', 'the entry body (markdown)')
    .addOption(new Option('--type <type>', 'entry type').makeOptionMandatory(false))
    .option('--title <title>', 'entry title')
    .option('--tags <list>', 'comma-separated tags')
    .option('--link <rel:id>', 'a link, e.g. relates_to:kb-0042 (repeatable)', collect)
    .option('--url <url>', 'URL (required for bookmark)')
    .option('--applies-to <list>', 'activities: writing, reviewing, planning, coding')
    .option('--kernel', 'inject the body on every prompt (keep it short)')
    .option('--host <key>', 'host key (for host_fact)')
    .option('--aliases <list>', 'comma-separated aliases')
    .option('--pattern-key <key>', "the lesson's slug: if an entry has it, record a recurrence there instead")
    .option('--file <path>', 'read the body from a file (- for stdin)')
    .action(async (bodyWords: string[], o: Record<string, unknown>, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      if (!o.type) throw new KbError('INVALID_ENTRY', 'missing --type (one of: factual_reference, decision, pattern_convention, lesson_learned, bookmark, host_fact, session_summary)');
      let body = bodyWords.length ? bodyWords.join(' ') : undefined;
      if (o.file) body = readFileArg(o.file as string);
      else if (body === undefined) body = (await readStdinIfPiped()) ?? '';
      const { addEntry } = await import('../../app/add.js');
      const r = await addEntry({
        ...repo,
        type: o.type as string,
        title: o.title as string,
        body,
        tags: o.tags as string | undefined,
        links: o.link as string[] | undefined,
        url: o.url as string | undefined,
        appliesTo: o.appliesTo as string | undefined,
        kernel: o.kernel as boolean | undefined,
        host: o.host as string | undefined,
        aliases: o.aliases as string | undefined,
        patternKey: o.patternKey as string | undefined,
      });
      ctx.reply({ json: r, text: () => render.add(r) });
    });
}
