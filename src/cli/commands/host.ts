/** `host <sub>`: per-host facts (spec/hosts.md). */
import type { Command } from 'commander';
import { type Cli, collect, emit, globals, readFileArg, readStdinIfPiped } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { group } = ctx;
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
      const m = await import('../../app/host.js');
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
      const m = await import('../../app/host.js');
      const r = await m.addHostFact({ data: g.data, key, fact, title: o.title, tags: o.tags });
      emit(r, () => `${r.id}${r.registered ? `\n(new host ${r.host} registered with its key as marker; "git-kb host register ${r.host} --marker NAME" adds more)` : ''}`);
    });
  host('load', "print a host's facts between sentinel lines (loaded, empty, unknown, forbidden)")
    .argument('<key>', 'host key or alias')
    .action(async (key: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const m = await import('../../app/host.js');
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
      const m = await import('../../app/host.js');
      const r = await m.detectHosts({ data: g.data, text });
      emit(r, () => m.describeDetect(r));
    });
  host('list', 'the hosts of hosts.yaml with their fact counts').action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const m = await import('../../app/host.js');
    const r = await m.listHosts({ data: g.data });
    emit({ hosts: r }, () => m.describeList(r));
  });
  host('status', "hosts.yaml's health and every host's facts and size").action(async (_o: unknown, cmd: Command) => {
    const g = globals(cmd);
    const m = await import('../../app/host.js');
    const r = await m.hostStatus({ data: g.data });
    emit(r, () => m.describeStatus(r));
    if (!r.valid) process.exitCode = 5;
  });
  host('forbid', 'add a global forbidden pattern (a word or /regex/): text that matches is never stored')
    .argument('<pattern>', 'word, name, IP or /regex/flags')
    .action(async (pattern: string, _o: unknown, cmd: Command) => {
      const g = globals(cmd);
      const m = await import('../../app/host.js');
      const r = await m.forbidPattern({ data: g.data, pattern });
      emit(r, () => (r.changed ? `added forbidden pattern #${r.count} (commit ${r.commit!.slice(0, 12)})` : 'already forbidden'));
    });
}
