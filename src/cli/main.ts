/**
 * Contract: the command line of spec/cli.md. This is the one place that prints errors and chooses exit codes:
 * a KbError exits with its code's exit status (spec/errors.md), usage mistakes exit 2, anything else exits 1.
 * With --json, results go to stdout as JSON and errors to stderr as {"error":{"code","message"}}.
 * Each verb's module is loaded only when that verb runs.
 */
import fs from 'node:fs';
import { Command, CommanderError, Option } from 'commander';
import { KbError } from '../errors.js';
import * as render from './render.js';

interface Globals {
  json?: boolean;
  data?: string;
}

// Known before parsing, so even a usage error is reported as JSON; arguments after `--` are not flags.
const dashdash = process.argv.indexOf('--');
let jsonMode = process.argv.slice(0, dashdash === -1 ? undefined : dashdash).includes('--json');

function out(text: string): void {
  if (text) process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function emit(result: unknown, text: () => string): void {
  if (jsonMode) out(JSON.stringify(result, null, 2));
  else out(text());
}

function globals(cmd: Command): Globals {
  const o = cmd.optsWithGlobals() as Globals;
  if (o.json) jsonMode = true;
  return o;
}

function withCommon(cmd: Command): Command {
  return cmd.option('--json', 'machine-readable output on stdout').option('--data <dir>', 'the data repo (default: see "Data repo" in the README)');
}

function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

function intArg(name: string) {
  return (v: string): number => {
    if (!/^\d+$/.test(v)) throw new KbError('USAGE', `${name} must be a positive integer, got "${v}"`);
    return Number(v);
  };
}

async function readStdinIfPiped(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const st = fs.fstatSync(0);
  if (!st.isFIFO() && !st.isFile() && !st.isSocket()) return undefined;
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function readFileArg(file: string): string {
  try {
    return fs.readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new KbError('NOT_FOUND', `cannot read --file ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
}

/** Builds the command tree. */
export function buildProgram(): Command {
  const program = new Command('git-kb')
    .description('A personal knowledge base in plain markdown and git, for you and your coding agents.')
    .version('2.0.0')
    .option('--json', 'machine-readable output on stdout')
    .option('--data <dir>', 'the data repo')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeErr: () => undefined, outputError: () => undefined });

  const verb = (name: string, description: string): Command => {
    const cmd = withCommon(program.command(name).description(description)).exitOverride().configureOutput({ writeErr: () => undefined, outputError: () => undefined });
    return cmd;
  };

  verb('init', 'create a data repo, adopt an existing clone, or clone one; record it in the config')
    .option('--clone <url>', 'clone this remote into the data repo directory')
    .option('--remote <url>', 'set the remote (origin) used by sync')
    .action(async (o: { clone?: string; remote?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { initDataRepo } = await import('../kb/init.js');
      const r = await initDataRepo({ ...o, data: g.data });
      emit(r, () => render.init(r));
    });

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
    .option('--file <path>', 'read the body from a file (- for stdin)')
    .action(async (bodyWords: string[], o: Record<string, unknown>, cmd: Command) => {
      const g = globals(cmd);
      if (!o.type) throw new KbError('INVALID_ENTRY', 'missing --type (one of: factual_reference, decision, pattern_convention, lesson_learned, bookmark, host_fact, session_summary)');
      let body = bodyWords.length ? bodyWords.join(' ') : undefined;
      if (o.file) body = readFileArg(o.file as string);
      else if (body === undefined) body = (await readStdinIfPiped()) ?? '';
      const { addEntry } = await import('../kb/add.js');
      const r = await addEntry({
        data: g.data,
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
      });
      emit(r, () => r.id);
    });

  verb('edit', 'change an entry in place, print the diff, and commit')
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
    .option('--aliases <list>', 'replace the aliases')
    .option('--body <text>', 'replace the body')
    .option('--append <text>', 'append a paragraph to the body')
    .option('--file <path>', 'replace the body with a file (- for stdin)')
    .action(async (id: string, o: Record<string, unknown>, cmd: Command) => {
      const g = globals(cmd);
      const bodies = ['body', 'append', 'file'].filter((k) => o[k] !== undefined);
      if (bodies.length > 1) throw new KbError('USAGE', `--${bodies.join(' and --')} cannot be combined; use one`);
      const kernelSet = cmd.getOptionValueSource('kernel') === 'cli';
      const { editEntry } = await import('../kb/edit.js');
      const r = await editEntry({
        data: g.data,
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
        body: o.file !== undefined ? readFileArg(o.file as string) : (o.body as string | undefined),
        append: o.append as string | undefined,
      });
      emit(r, () => render.edit(r));
    });

  verb('get', 'print entries verbatim')
    .argument('<ids...>', 'entry ids')
    .option('--links', "also list each entry's 1-hop neighbours")
    .action(async (ids: string[], o: { links?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const { getEntries } = await import('../kb/get.js');
      const r = await getEntries({ data: g.data, ids, links: o.links });
      emit({ entries: r }, () => render.get(r));
    });

  verb('search', 'ranked full-text search; several queries are merged')
    .argument('<queries...>', 'one or more queries (quote multi-word queries to keep them together)')
    .option('--type <type>', 'only this type')
    .option('--tag <tag>', 'only entries with this tag')
    .option('--host <key>', 'only facts of this host')
    .option('--since <date>', 'only entries updated since (YYYY-MM-DD)')
    .option('--limit <n>', 'at most N results (default 10)', intArg('--limit'))
    .action(async (queries: string[], o: Record<string, unknown>, cmd: Command) => {
      const g = globals(cmd);
      const { searchEntries } = await import('../kb/search.js');
      const r = await searchEntries({ data: g.data, queries, ...(o as object) });
      emit({ query: r.query, queries: r.queries, results: r.results }, () => render.search(r));
    });

  verb('list', 'entries, newest first')
    .option('--type <type>', 'only this type')
    .option('--tag <tag>', 'only entries with this tag')
    .option('--host <key>', 'only facts of this host')
    .option('--since <date>', 'only entries updated since (YYYY-MM-DD)')
    .option('--limit <n>', 'at most N entries', intArg('--limit'))
    .action(async (o: Record<string, unknown>, cmd: Command) => {
      const g = globals(cmd);
      const { listEntries } = await import('../kb/list.js');
      const r = await listEntries({ data: g.data, ...(o as object) });
      emit({ entries: r }, () => render.list(r));
    });

  verb('lint', 'validate the whole data repo; exit 5 if anything is wrong').action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const { lintRepo } = await import('../kb/lint.js');
    const r = lintRepo({ data: g.data });
    emit({ ok: r.problems.length === 0, files: r.files, problems: r.problems }, () => render.lint(r));
    if (r.problems.length > 0) process.exitCode = 5;
  });

  verb('import', 'import a folder of markdown notes in one commit')
    .argument('<dir>', 'folder of .md notes')
    .option('--type <type>', 'type for every note (default: its own, else factual_reference)')
    .option('--tags-from-folders', 'tag each note with the folders it sits in')
    .option('--skip-invalid', 'import the valid notes and report the rest (never for secrets)')
    .option('--redact', 'replace secret-shaped content with [REDACTED:kind] markers instead of refusing')
    .action(async (source: string, o: { type?: string; tagsFromFolders?: boolean; skipInvalid?: boolean; redact?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const { importNotes } = await import('../kb/import.js');
      const progress = render.progressBar('importing');
      const r = await importNotes({ data: g.data, source, ...o, onProgress: progress.update });
      progress.done();
      emit(r, () => render.importResult(r));
    });

  verb('history', "an entry's commits, newest first")
    .argument('<id>', 'entry id')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const { entryHistory } = await import('../kb/history.js');
      const r = await entryHistory({ data: g.data, id });
      emit(r, () => render.history(r));
    });

  verb('restore', 'bring back an earlier version of an entry as a new commit')
    .argument('<id>', 'entry id')
    .option('--to <rev>', 'the commit to restore from (default: the version before the last change)')
    .action(async (id: string, o: { to?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { restoreEntry } = await import('../kb/history.js');
      const r = await restoreEntry({ data: g.data, id, to: o.to });
      emit(r, () => (r.changed ? `restored ${r.id} from ${r.from.slice(0, 12)} (commit ${r.commit!.slice(0, 12)})` : `${r.id} already matches ${r.from.slice(0, 12)}; nothing to do`));
    });

  verb('status', 'the data repo, entry counts, kernel size, remote').action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const { repoStatus } = await import('../kb/status.js');
    const r = await repoStatus({ data: g.data });
    emit(r, () => render.status(r));
  });

  // Sync (spec/sync.md): sync, resolve, and the optional push after each CLI write (auto_sync; hooks never wait).
  verb('sync', 'fetch, merge and push the data repo; exit 4 while conflicts remain (spec/sync.md)')
    .option('--no-push', 'fetch and merge only')
    .option('--timeout <seconds>', 'give up on the network after this many seconds', intArg('--timeout'))
    .action(async (o: { push?: boolean; timeout?: number }, cmd: Command) => {
      const g = globals(cmd);
      const { syncRepo, describeSync } = await import('../kb/sync.js');
      const r = await syncRepo({ data: g.data, push: o.push, timeoutMs: o.timeout ? o.timeout * 1000 : undefined });
      emit(r, () => describeSync(r));
      if (r.unresolved.length > 0) process.exitCode = 4;
    });
  verb('resolve', 'settle a sync conflict: keep ours (the file), theirs (the block) or both')
    .argument('[targets...]', 'entry ids, or files with a .conflict-* sibling')
    .option('--keep <side>', 'ours | theirs | both')
    .option('--all', 'every unresolved conflict')
    .action(async (targets: string[], o: { keep?: string; all?: boolean }, cmd: Command) => {
      const g = globals(cmd);
      const { resolveConflicts, describeResolve } = await import('../kb/sync.js');
      const r = await resolveConflicts({ data: g.data, targets, keep: o.keep, all: o.all });
      emit(r, () => describeResolve(r));
    });
  program.hook('postAction', async (_p: Command, action: Command) => {
    if (action.name() === 'sync' || action.name() === 'hook') return;
    const { committedDirs } = await import('../kb/commit-events.js');
    const dirs = committedDirs();
    if (dirs.length === 0) return;
    const { autoSyncAfterWrite } = await import('../kb/sync.js');
    for (const line of await autoSyncAfterWrite(dirs)) process.stderr.write(`git-kb: ${line}\n`);
  });

  // Hooks without the plugin (spec/hooks.md, "Install without the plugin").
  for (const action of ['install', 'uninstall'] as const) {
    verb(action, action === 'install' ? 'wire the hooks of hooks/hooks.json into ~/.claude/settings.json' : 'remove git-kb hooks from ~/.claude/settings.json')
      .option('--dry-run', 'print the change without writing it')
      .option('--settings <file>', 'the settings file (default ~/.claude/settings.json)')
      .action(async (o: { dryRun?: boolean; settings?: string }, cmd: Command) => {
        globals(cmd);
        const m = await import('../kb/install.js');
        const r = await (action === 'install' ? m.installHooks : m.uninstallHooks)({ dryRun: o.dryRun, settings: o.settings });
        emit(r, () => m.describeInstall(r));
      });
  }

  // Hosts and sessions (spec/hosts.md, spec/sessions.md): `host <sub>` and `session <sub>`.
  const group = (name: string, description: string): ((sub: string, d: string) => Command) => {
    const parent = program.command(name).description(description).exitOverride().configureOutput({ writeErr: () => undefined, outputError: () => undefined });
    return (sub, d) => withCommon(parent.command(sub).description(d)).exitOverride().configureOutput({ writeErr: () => undefined, outputError: () => undefined });
  };
  const host = group('host', 'per-host facts: register, add, load, detect, list, status (spec/hosts.md)');
  host('register', 'add a host to hosts.yaml, or add markers and aliases to one, and commit')
    .argument('<key>', 'the host key (lowercase letters, digits, _ and -)')
    .option('--marker <m>', 'a name, IP or /regex/ that identifies the host in text (repeatable)', collect)
    .option('--alias <a>', 'another name of the host (repeatable)', collect)
    .option('--forbidden', 'never load, write or surface anything about this host')
    .option('--no-forbidden', 'clear the forbidden flag')
    .option('--description <text>', 'a short description')
    .action(async (key: string, o: { marker?: string[]; alias?: string[]; forbidden?: boolean; description?: string }, cmd: Command) => {
      const g = globals(cmd);
      const m = await import('../kb/host.js');
      const forbidden = cmd.getOptionValueSource('forbidden') === 'cli' ? o.forbidden : undefined;
      const r = await m.registerHost({ data: g.data, key, markers: o.marker, aliases: o.alias, forbidden, description: o.description });
      emit(r, () => `${r.changed ? (r.created ? 'registered' : 'updated') : 'unchanged:'} host ${r.key}${r.host.forbidden ? ' (forbidden)' : ''}${r.commit ? ` (commit ${r.commit.slice(0, 12)})` : ''}`);
    });
  host('add', "record a fact about a host (body from FACT, --file, or stdin); registers a new key")
    .argument('<key>', 'host key or alias')
    .argument('[fact...]', 'the fact (markdown)')
    .option('--title <title>', 'title (default: the first line of the fact)')
    .option('--tags <list>', 'comma-separated tags')
    .option('--file <path>', 'read the fact from a file (- for stdin)')
    .action(async (key: string, words: string[], o: { title?: string; tags?: string; file?: string }, cmd: Command) => {
      const g = globals(cmd);
      const fact = o.file ? readFileArg(o.file) : words.length ? words.join(' ') : ((await readStdinIfPiped()) ?? '');
      const m = await import('../kb/host.js');
      const r = await m.addHostFact({ data: g.data, key, fact, title: o.title, tags: o.tags });
      emit(r, () => `${r.id}${r.registered ? `\n(new host ${r.host} registered with its key as marker; "git-kb host register ${r.host} --marker NAME" adds more)` : ''}`);
    });
  host('load', "print a host's facts between sentinel lines (loaded, empty, unknown, forbidden)")
    .argument('<key>', 'host key or alias')
    .action(async (key: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const m = await import('../kb/host.js');
      const r = await m.loadHostFacts({ data: g.data, key });
      emit(r.status === 'forbidden' ? { status: r.status } : r, () => m.describeLoad(r));
      if (r.status === 'unknown') process.exitCode = 3;
      if (r.status === 'forbidden') process.exitCode = 5;
    });
  host('detect', 'the known hosts a text names (TEXT, or stdin)')
    .argument('[text...]', 'the text')
    .action(async (words: string[], _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const text = words.length ? words.join(' ') : ((await readStdinIfPiped()) ?? '');
      const m = await import('../kb/host.js');
      const r = await m.detectHosts({ data: g.data, text });
      emit(r, () => m.describeDetect(r));
    });
  host('list', 'the hosts of hosts.yaml with their fact counts').action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const m = await import('../kb/host.js');
    const r = await m.listHosts({ data: g.data });
    emit({ hosts: r }, () => m.describeList(r));
  });
  host('status', "hosts.yaml's health and every host's facts and size").action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const m = await import('../kb/host.js');
    const r = await m.hostStatus({ data: g.data });
    emit(r, () => m.describeStatus(r));
    if (!r.valid) process.exitCode = 5;
  });
  host('forbid', 'add a global forbidden pattern (a word or /regex/): text that matches is never stored')
    .argument('<pattern>', 'word, name, IP or /regex/flags')
    .action(async (pattern: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const m = await import('../kb/host.js');
      const r = await m.forbidPattern({ data: g.data, pattern });
      emit(r, () => (r.changed ? `added forbidden pattern #${r.count} (commit ${r.commit!.slice(0, 12)})` : 'already forbidden'));
    });
  const session = group('session', 'session summaries: list, show, record, catch-up (spec/sessions.md)');
  session('list', 'session summaries, most recent first')
    .option('--cwd <dir>', 'only sessions of this project directory')
    .option('--limit <n>', 'at most N', intArg('--limit'))
    .action(async (o: { cwd?: string; limit?: number }, cmd: Command) => {
      const g = globals(cmd);
      const { listSessions } = await import('../kb/session.js');
      const r = await listSessions({ data: g.data, ...o });
      emit({ sessions: r }, () => (r.length ? r.map((s) => `${s.id}  ${(s.ended ?? '').slice(0, 16).replace('T', ' ')}  ${s.project ?? '-'}  ${s.branch ?? '-'}  ${s.turns ?? '?'} prompts  ${s.title}`).join('\n') : 'no session summaries'));
    });
  session('show', 'print a session summary (by entry id or session id)')
    .argument('<id>', 'entry id, or session id (8 characters or more)')
    .action(async (id: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const { showSession } = await import('../kb/session.js');
      const r = await showSession({ data: g.data, id });
      emit(r, () => r.text);
    });
  session('record', 'summarise a transcript into its session_summary entry and commit it')
    .requiredOption('--transcript <path>', 'the Claude Code transcript (JSONL)')
    .option('--session-id <id>', 'the session id (default: the transcript\'s own)')
    .action(async (o: { transcript: string; sessionId?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { recordSession } = await import('../kb/session.js');
      const r = await recordSession({ data: g.data, transcript: o.transcript, sessionId: o.sessionId, create: true });
      emit(r, () => (r.status === 'written' ? `${r.id} written (commit ${r.commit!.slice(0, 12)})` : r.status === 'unchanged' ? `${r.id} unchanged` : `no summary: ${r.reason}`));
      if (r.status === 'forbidden') process.exitCode = 5;
    });
  session('catch-up', 'summarise recent transcripts under ~/.claude/projects that were never summarised')
    .option('--days <n>', 'transcripts changed in the last N days (default 30)', intArg('--days'))
    .option('--exclude <session-id>', 'leave this session alone (repeatable)', collect)
    .option('--projects <dir>', 'the transcripts folder (default ~/.claude/projects)')
    .action(async (o: { days?: number; exclude?: string[]; projects?: string }, cmd: Command) => {
      const g = globals(cmd);
      const { catchUpSessions } = await import('../kb/session.js');
      const r = await catchUpSessions({ data: g.data, ...o });
      emit(r, () => `${r.written.length} written, ${r.unchanged} unchanged, ${r.skipped} without prompts, ${r.forbidden} forbidden, ${r.current} already current${r.failed.length ? `, ${r.failed.length} failed` : ''}${r.left ? `, ${r.left} left for next time` : ''}`);
    });

  return program;
}

function commanderToKbError(err: CommanderError): KbError | undefined {
  if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') return undefined;
  const msg = err.message.replace(/^error: /, '');
  if (err.code === 'commander.unknownCommand') return new KbError('UNKNOWN_VERB', `${msg}; run "git-kb --help" for the verbs`);
  if (err.code === 'commander.unknownOption') return new KbError('UNKNOWN_OPTION', `${msg}; run "git-kb <verb> --help" for its flags`);
  return new KbError('USAGE', msg);
}

/** Runs the CLI with argv (without node and script). Sets process.exitCode; never calls process.exit. */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    if (argv.length === 0) {
      out(program.helpInformation());
      return;
    }
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    let e: unknown = err;
    if (err instanceof CommanderError) {
      const mapped = commanderToKbError(err);
      if (!mapped) {
        process.exitCode = 0;
        return;
      }
      e = mapped;
    }
    report(e);
  }
}

function report(err: unknown): void {
  const kb = err instanceof KbError ? err : undefined;
  const code = kb?.code ?? 'INTERNAL';
  const message = kb ? kb.message : `internal error: ${(err as Error)?.stack ?? String(err)}`;
  if (jsonMode) {
    const data = kb && Object.keys(kb.data).length ? { data: kb.data } : {};
    process.stderr.write(`${JSON.stringify({ error: { code, message, ...data } })}\n`);
  } else {
    process.stderr.write(`git-kb: error: ${message}\n`);
  }
  process.exitCode = kb ? kb.exitCode : 1;
}
