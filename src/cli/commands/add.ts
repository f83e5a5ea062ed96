/** `add`: a new entry (spec/cli.md). */
import { type Command, Option } from 'commander';
import { tty } from '../../adapters/system/builtins.js';
import type { RepoOptions } from '../../app/repo.js';
import { KbError } from '../../core/errors.js';
import { TYPES } from '../../core/format/schema.js';
import * as render from '../render/entries.js';
import { entryOverWarning, kernelOverWarning } from '../render/memory.js';
import { type Cli, collect, readFileArg, readStdinIfPiped, repoOptions, type Reply } from '../io.js';
import { unknownChoice } from '../../core/text/suggest.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { verb } = ctx;
  verb('add', 'add an entry (body from BODY, --file, or stdin; on a terminal with none, in $VISUAL/$EDITOR) and commit it')
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
    .option('--rule <rule>', "a prose rule the gate enforces on a kernel entry: 'PATTERN => MESSAGE' or '/PATTERN/FLAGS => MESSAGE' (repeatable)", collect)
    .option('--file <path>', 'read the body from a file (- for stdin)')
    .action(async (bodyWords: string[], o: Record<string, unknown>, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      if (!o.file && bodyWords.length === 0 && tty().isatty(0)) {
        ctx.reply(await addInEditor(ctx, repo, o));
        return;
      }
      if (!o.type) throw new KbError('USAGE', `missing --type (one of: ${TYPES.join(', ')})`);
      if (!(TYPES as readonly string[]).includes(o.type as string)) throw unknownChoice('--type', String(o.type), TYPES);
      if (typeof o.title !== 'string' || !o.title.trim()) throw new KbError('USAGE', 'missing --title "..."');
      if (o.file && bodyWords.length) throw new KbError('USAGE', 'a BODY and --file cannot be combined; use one');
      let body = bodyWords.length ? bodyWords.join(' ') : undefined;
      if (o.file) body = readFileArg(o.file as string);
      // NOTE: nothing but white space on stdin (closed, /dev/null, an agent's shell) is no body given at all, a
      // usage error the use case reports (spec/cli.md, `add`).
      else if (body === undefined) {
        const piped = await readStdinIfPiped();
        body = piped?.trim() ? piped : undefined;
      }
      const { addEntry } = await import('../../app/add.js');
      const r = await addEntry({
        ...repo,
        type: o.type as string,
        title: o.title as string,
        body,
        bodyFrom: o.file ? (o.file === '-' ? '--file - (stdin)' : `--file ${o.file as string}`) : undefined,
        tags: o.tags as string | undefined,
        links: o.link as string[] | undefined,
        url: o.url as string | undefined,
        appliesTo: o.appliesTo as string | undefined,
        kernel: o.kernel as boolean | undefined,
        host: o.host as string | undefined,
        aliases: o.aliases as string | undefined,
        patternKey: o.patternKey as string | undefined,
        ruleArgs: o.rule as string[] | undefined,
      });
      ctx.reply({ json: r, text: () => render.add(r), warnings: [...kernelOverWarning(r.kernel_over), ...entryOverWarning(r.entry_over)] });
    });
}

/** `add` with no body on a terminal: the editor on a template of the flags given (src/cli/editor.ts). */
async function addInEditor(ctx: Cli, repo: RepoOptions, o: Record<string, unknown>): Promise<Reply> {
  const { entryTemplate, readTemplate } = await import('../../core/format/template.js');
  const { splitList, parseLinks, tagList } = await import('../../app/fields.js');
  const { addEntry } = await import('../../app/add.js');
  const { editLoop } = await import('../editor.js');
  const text = entryTemplate({
    title: o.title as string | undefined,
    type: o.type as string | undefined,
    tags: tagList(o.tags as string | undefined),
    aliases: splitList(o.aliases as string | undefined),
    links: parseLinks(o.link as string[] | undefined),
    url: o.url as string | undefined,
    host: o.host as string | undefined,
    applies_to: splitList(o.appliesTo as string | undefined),
    kernel: o.kernel === true,
    pattern_key: o.patternKey as string | undefined,
  });
  const r = await editLoop({
    text,
    name: 'new-entry.md',
    settings: ctx.settings,
    what: 'add with no body',
    save: async (saved) => {
      if (!saved.trim()) throw new KbError('ABORTED', 'the file was left empty; nothing added');
      const t = readTemplate(saved, 'the new entry');
      if (!t.body.trim()) throw new KbError('ABORTED', 'the body was left empty; nothing added');
      if (!t.type) throw new KbError('USAGE', `the new entry needs a type (one of: ${TYPES.join(', ')})`);
      if (!t.title) throw new KbError('USAGE', 'the new entry needs a title');
      return addEntry({ ...repo, ...t, title: t.title, type: t.type, body: t.body });
    },
  });
  return { json: r, text: () => render.add(r) };
}
