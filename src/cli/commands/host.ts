/** `host <sub>`: per-host facts (spec/hosts.md). */
import type { Command } from 'commander';
import * as render from '../render/hosts.js';
import { type Cli, collect, readFileArg, readStdinIfPiped, repoOptions } from '../io.js';

/** Registers the verb on the program. */
export function register(ctx: Cli): void {
  const { group } = ctx;
  const host = group('host', 'per-host facts: register, add, load, detect, list, status, forbid (man git-kb)');
  host('register', 'add a host to hosts.yaml, or add markers and aliases to one, and commit')
    .argument('<key>', 'the host key (lowercase letters, digits, _ and -)')
    .option('--marker <m>', 'a name, IP or /regex/ that identifies the host in text (repeatable)', collect)
    .option('--alias <a>', 'another name of the host (repeatable)', collect)
    .option('--forbidden', 'never load, write or surface anything about this host')
    .option('--no-forbidden', 'clear the forbidden flag')
    .option('--description <text>', 'a short description')
    .action(async (key: string, o: { marker?: string[]; alias?: string[]; forbidden?: boolean; description?: string }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const m = await import('../../app/host.js');
      const forbidden = cmd.getOptionValueSource('forbidden') === 'cli' ? o.forbidden : undefined;
      const r = await m.registerHost({ ...repo, key, markers: o.marker, aliases: o.alias, forbidden, description: o.description });
      ctx.reply({ json: r, text: () => render.register(r) });
    });
  host('add', "record a fact about a host (body from FACT, --file, or stdin); registers a new key")
    .argument('<key>', 'host key or alias')
    .argument('[fact...]', 'the fact (markdown)')
    .option('--title <title>', 'title (default: the first line of the fact)')
    .option('--tags <list>', 'comma-separated tags')
    .option('--file <path>', 'read the fact from a file (- for stdin)')
    .action(async (key: string, words: string[], o: { title?: string; tags?: string; file?: string }, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      // NOTE: nothing but white space on stdin is no fact given at all, a usage error (as add's body).
      const piped = o.file || words.length ? undefined : await readStdinIfPiped();
      const fact = o.file ? readFileArg(o.file) : words.length ? words.join(' ') : piped?.trim() ? piped : undefined;
      const m = await import('../../app/host.js');
      const r = await m.addHostFact({ ...repo, key, fact, title: o.title, tags: o.tags });
      ctx.reply({ json: r, text: () => render.addFact(r) });
    });
  host('load', "print a host's facts between sentinel lines (loaded, empty, unknown, forbidden)")
    .argument('<key>', 'host key or alias')
    .action(async (key: string, _o: unknown, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const m = await import('../../app/host.js');
      const r = await m.loadHostFacts({ ...repo, key });
      const { exit, ...data } = r;
      // NOTE: a forbidden host answers with its status alone: not even the key is echoed back.
      ctx.reply({ json: r.status === 'forbidden' ? { status: r.status } : data, text: () => render.load(r), exit });
    });
  host('detect', 'the known hosts a text names (TEXT, or stdin)')
    .argument('[text...]', 'the text')
    .action(async (words: string[], _o: unknown, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const text = words.length ? words.join(' ') : ((await readStdinIfPiped()) ?? '');
      const m = await import('../../app/host.js');
      const r = await m.detectHosts({ ...repo, text });
      ctx.reply({ json: r, text: () => render.detect(r) });
    });
  host('list', 'the hosts of hosts.yaml with their fact counts').action(async (_o: unknown, cmd: Command) => {
    const repo = repoOptions(ctx, cmd);
    const m = await import('../../app/host.js');
    const r = await m.listHosts(repo);
    ctx.reply({ json: { hosts: r }, text: () => render.list(r) });
  });
  host('status', "hosts.yaml's health and every host's facts and size").action(async (_o: unknown, cmd: Command) => {
    const repo = repoOptions(ctx, cmd);
    const m = await import('../../app/host.js');
    const r = await m.hostStatus(repo);
    const { exit, ...data } = r;
    ctx.reply({ json: data, text: () => render.status(r), exit });
  });
  host('forbid', 'add a global forbidden pattern (a word or /regex/): text that matches is never stored')
    .argument('<pattern>', 'word, name, IP or /regex/flags')
    .action(async (pattern: string, _o: unknown, cmd: Command) => {
      const repo = repoOptions(ctx, cmd);
      const m = await import('../../app/host.js');
      const r = await m.forbidPattern({ ...repo, pattern });
      ctx.reply({ json: r, text: () => render.forbid(r) });
    });
}
