/**
 * Contract: `git-kb install` / `git-kb uninstall` (spec/hooks.md, "Install without the plugin"). Wires the hooks
 * of hooks/hooks.json (the one source of truth), with ${CLAUDE_PLUGIN_ROOT} replaced by this checkout's
 * absolute path, into Claude Code's settings.json. The file is edited as text: only the spans that change are
 * touched, so every other setting and hook keeps its bytes, and uninstall after install gives back the
 * original file. Install is idempotent; uninstall removes only hook commands that run git-kb-hook. A settings
 * file that is not valid JSON is refused, and nothing is written with --dry-run (the diff is returned).
 *
 * The hooks' pointers tell the model to run `git-kb get`: install puts `git-kb` in reach of the model's shell by
 * writing a shim (`~/.local/bin/git-kb`, or --bin-dir) that runs this checkout's bin/git-kb, unless `git-kb` on
 * PATH already is this checkout's; it says so when the shim's folder is not on PATH. NOTE: a shim rather than
 * absolute commands, because the pointer text, SKILL.md, the permission rule `Bash(git-kb *)` and the prose gate's
 * read-only allowance all name the bare `git-kb`, as the plugin (which puts bin/ on PATH) does.
 *
 * When the git-kb plugin is installed and enabled (Claude Code's plugins/installed_plugins.json), install refuses
 * (CONFLICT): every hook would run twice. --force wires anyway.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { KbError } from '../core/errors.js';
import { shellQuote } from '../core/text/shell-quote.js';
import { writeFileAtomic } from '../adapters/store/fsutil.js';
import { findExecutable } from '../adapters/system/which.js';

export interface InstallOptions {
  /** The settings file (default <claudeConfigDir>/settings.json). */
  settings?: string;
  /** The git-kb checkout whose bin/git-kb-hook is wired (default: this one). */
  root?: string;
  dryRun?: boolean;
  /** The user's home, for the default shim folder. */
  home: string;
  /** Claude Code's config folder (CLAUDE_CONFIG_DIR, default ~/.claude): settings.json and plugins/. */
  claudeConfigDir?: string;
  /** The user's PATH, to tell whether `git-kb` already reaches this checkout and the shim folder is on it. */
  path?: string;
  /** Where the `git-kb` shim goes (default ~/.local/bin). */
  binDir?: string;
  /** Wire the hooks even though the git-kb plugin is installed. */
  force?: boolean;
}

/** How the model's shell reaches `git-kb`. */
export interface CliReach {
  /** `written`/`removed`: the shim; `on-path`: PATH already finds this checkout's git-kb; `kept`: a git-kb that is not ours is in the shim's place. */
  action: 'written' | 'unchanged' | 'removed' | 'on-path' | 'kept' | 'none';
  /** The `git-kb` the model's shell runs. */
  path?: string;
  /** True when the shim's folder is not on PATH (the user must add it). */
  notOnPath?: boolean;
}

export interface InstallResult {
  action: 'install' | 'uninstall';
  settings: string;
  changed: boolean;
  dryRun: boolean;
  /** Unified diff of the settings file (empty when nothing changes). */
  diff: string;
  /** Events whose hooks were added or removed. */
  events: string[];
  /** The `git-kb` command the hooks' pointers name. */
  cli: CliReach;
  /** The installed git-kb plugin (`git-kb@<marketplace>`), when there is one. */
  plugin?: string;
}

interface HookCommand {
  type: string;
  command: string;
  timeout?: number;
  [k: string]: unknown;
}

interface HookGroup {
  matcher?: string;
  hooks: HookCommand[];
  [k: string]: unknown;
}

/** True for a hook command that runs git-kb's hook entry (any checkout, plugin or installed). */
export function isOurCommand(command: unknown): boolean {
  return typeof command === 'string' && /(?:^|[\s"'/\\])git-kb-hook["']?\s+[a-z][a-z-]*\s*$/.test(command);
}

/** The checkout this module runs from: the nearest parent with hooks/hooks.json and bin/git-kb-hook. */
export function packageRoot(from: string = path.dirname(fileURLToPath(import.meta.url))): string {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'hooks', 'hooks.json')) && fs.existsSync(path.join(dir, 'bin', 'git-kb-hook'))) return dir;
    const up = path.dirname(dir);
    if (up === dir) throw new KbError('NOT_FOUND', `cannot find hooks/hooks.json above ${from}; run git-kb from its checkout`);
    dir = up;
  }
}

/** Quotes a path for the inside of a double-quoted shell word. */
function shellQuoteInner(p: string): string {
  return p.replace(/[\\"$`]/g, (c) => `\\${c}`);
}

/** The hook groups of hooks/hooks.json by event, with the plugin root replaced by `root`. */
function desiredHooks(root: string): Record<string, HookGroup[]> {
  const file = path.join(root, 'hooks', 'hooks.json');
  let parsed: { hooks?: Record<string, HookGroup[]> };
  try {
    parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { hooks?: Record<string, HookGroup[]> };
  } catch (err) {
    throw new KbError('INTERNAL', `cannot read ${file}: ${(err as Error).message}`);
  }
  const out: Record<string, HookGroup[]> = {};
  for (const [event, groups] of Object.entries(parsed.hooks ?? {})) {
    out[event] = groups.map((g) => ({
      ...g,
      hooks: g.hooks.map((h) => ({ ...h, command: h.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', shellQuoteInner(root)) })),
    }));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------------
// A JSON parser that keeps the source span of every value, so edits can splice text.

interface Span {
  start: number;
  end: number;
}
type JNode =
  | (Span & { kind: 'object'; props: { key: string; keyStart: number; value: JNode }[] })
  | (Span & { kind: 'array'; items: JNode[] })
  | (Span & { kind: 'scalar'; value: unknown });

function parseWithSpans(text: string, file: string): JNode {
  let i = 0;
  const fail = (what: string): never => {
    const line = text.slice(0, i).split('\n').length;
    throw new KbError('USAGE', `${file}:${line}: not valid JSON (${what}); fix the file and run again, nothing was changed`, { file, line });
  };
  const ws = (): void => {
    while (i < text.length && /\s/.test(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i;
    i++;
    while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
    if (i >= text.length) fail('unterminated string');
    i++;
    return JSON.parse(text.slice(start, i)) as string;
  };
  const value = (): JNode => {
    ws();
    const start = i;
    const c = text[i];
    if (c === '{') {
      i++;
      const props: { key: string; keyStart: number; value: JNode }[] = [];
      ws();
      if (text[i] === '}') {
        i++;
        return { kind: 'object', props, start, end: i };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const keyStart = i;
        const key = str();
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        props.push({ key, keyStart, value: value() });
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return { kind: 'object', props, start, end: i };
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const items: JNode[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return { kind: 'array', items, start, end: i };
      }
      for (;;) {
        items.push(value());
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return { kind: 'array', items, start, end: i };
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return { kind: 'scalar', value: str(), start, end: i };
    const m = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(i, i + 64));
    if (!m) fail('unexpected character');
    i += m![0].length;
    return { kind: 'scalar', value: JSON.parse(m![0]), start, end: i };
  };
  const root = value();
  ws();
  if (i !== text.length) fail('text after the value');
  return root;
}

function toValue(text: string, n: JNode): unknown {
  return JSON.parse(text.slice(n.start, n.end));
}

/** The indentation unit of a JSON text (two spaces when it cannot tell). */
function indentUnit(text: string): string {
  const m = /\n([ \t]+)\S/.exec(text);
  return m ? m[1]! : '  ';
}

function lineIndent(text: string, pos: number): string {
  const lineStart = text.lastIndexOf('\n', pos - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/** Serialises a value for insertion at an indentation level. */
function render(value: unknown, unit: string, indent: string): string {
  return JSON.stringify(value, null, unit).replace(/\n/g, `\n${indent}`);
}

/** One child of a container as the rewrite sees it: its original span and its new text (null: removed). */
interface Child {
  span: Span;
  text: string | null;
}

/**
 * The new text of a container (object or array) whose children are kept (maybe changed), removed, or appended.
 * Splices as little as it can: appending and removing at the end touch only the end, so uninstall undoes
 * install byte for byte; only removals in the middle re-lay the container's children one per line.
 */
function rewriteContainer(source: string, c: Span, children: Child[], appended: string[], unit: string): string {
  const open = source[c.start]!;
  const close = source[c.end - 1]!;
  const outer = lineIndent(source, c.start);
  const indent = children.length ? lineIndent(source, children[0]!.span.start) : outer + unit;
  const kept = children.filter((ch) => ch.text !== null);
  const splice = (from: number, to: number, list: Child[]): string => {
    // The source between `from` and `to`, with kept children inside it replaced by their new text.
    let out = '';
    let pos = from;
    for (const ch of list) {
      if (ch.span.start < from || ch.span.end > to) continue;
      out += source.slice(pos, ch.span.start) + ch.text;
      pos = ch.span.end;
    }
    return out + source.slice(pos, to);
  };
  if (kept.length === 0) {
    if (appended.length === 0) return `${open}${close}`;
    return `${open}\n${appended.map((t) => `${indent}${t}`).join(',\n')}\n${outer}${close}`;
  }
  const lastKept = children.lastIndexOf(kept[kept.length - 1]!);
  const removedBefore = children.slice(0, lastKept).some((ch) => ch.text === null);
  if (!removedBefore) {
    const lastEnd = children[children.length - 1]!.span.end;
    const keptEnd = children[lastKept]!.span.end;
    return splice(c.start, keptEnd, kept) + appended.map((t) => `,\n${indent}${t}`).join('') + source.slice(lastEnd, c.end);
  }
  return `${open}\n${[...kept.map((ch) => ch.text!), ...appended].map((t) => `${indent}${t}`).join(',\n')}\n${outer}${close}`;
}

function propSpan(p: { keyStart: number; value: JNode }): Span {
  return { start: p.keyStart, end: p.value.end };
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/**
 * Computes the new settings text. `desired` undefined means uninstall. Returns the new text and the events
 * touched; the text is unchanged when there is nothing to do.
 */
export function editSettings(text: string, desired: Record<string, HookGroup[]> | undefined, file = 'settings.json'): { text: string; events: string[] } {
  // A file whose every line ends in CRLF (written on Windows) is edited as LF text and given its CRLF back, so the
  // lines added match the file's own (and uninstall still gives back its bytes). Mixed endings are left as they are.
  if (text.includes('\r\n') && !/(^|[^\r])\n/.test(text)) {
    const r = editSettings(text.replaceAll('\r\n', '\n'), desired, file);
    return { text: r.text.replaceAll('\n', '\r\n'), events: r.events };
  }
  const source = text.trim() ? text : '{}\n';
  const root = parseWithSpans(source, file);
  if (root.kind !== 'object') throw new KbError('USAGE', `${file}: the settings file must hold a JSON object; nothing was changed`);
  const unit = indentUnit(source);
  const hooksProp = root.props.find((p) => p.key === 'hooks');
  if (hooksProp && hooksProp.value.kind !== 'object') throw new KbError('USAGE', `${file}: "hooks" must be an object; nothing was changed`);
  const hooksNode = hooksProp?.value as Extract<JNode, { kind: 'object' }> | undefined;
  const wanted = desired ?? {};
  const touched = new Set<string>();

  // Event level: each existing event array, with our groups removed (or our commands taken out of a group
  // the user shares with us), then the wanted groups appended.
  const eventChildren: Child[] = [];
  for (const prop of hooksNode?.props ?? []) {
    const want = wanted[prop.key] ?? [];
    const span = propSpan(prop);
    if (prop.value.kind !== 'array') {
      eventChildren.push({ span, text: source.slice(span.start, span.end) });
      continue;
    }
    const arr = prop.value;
    const groups: Child[] = [];
    const oursNow: unknown[] = [];
    let mixed = false;
    for (const g of arr.items) {
      const gSpan = { start: g.start, end: g.end };
      const hooksOf = g.kind === 'object' ? g.props.find((p) => p.key === 'hooks') : undefined;
      if (!hooksOf || hooksOf.value.kind !== 'array') {
        groups.push({ span: gSpan, text: source.slice(g.start, g.end) });
        continue;
      }
      const inner = hooksOf.value;
      const mine = inner.items.map((h) => h.kind === 'object' && isOurCommand((toValue(source, h) as HookCommand).command));
      if (!mine.some(Boolean)) groups.push({ span: gSpan, text: source.slice(g.start, g.end) });
      else if (mine.every(Boolean)) {
        oursNow.push(toValue(source, g));
        groups.push({ span: gSpan, text: null });
      } else {
        mixed = true;
        const innerText = rewriteContainer(source, inner, inner.items.map((h, j) => ({ span: { start: h.start, end: h.end }, text: mine[j] ? null : source.slice(h.start, h.end) })), [], unit);
        groups.push({ span: gSpan, text: source.slice(g.start, inner.start) + innerText + source.slice(inner.end, g.end) });
      }
    }
    if (!mixed && sameJson(oursNow, want)) {
      eventChildren.push({ span, text: source.slice(span.start, span.end) });
      continue;
    }
    touched.add(prop.key);
    const keptGroups = groups.filter((g) => g.text !== null);
    if (keptGroups.length === 0 && want.length === 0) {
      eventChildren.push({ span, text: null }); // the event held only our hooks
      continue;
    }
    const indent = arr.items.length ? lineIndent(source, arr.items[0]!.start) : lineIndent(source, arr.start) + unit;
    const arrText = rewriteContainer(source, arr, groups, want.map((g) => render(g, unit, indent)), unit);
    eventChildren.push({ span, text: source.slice(span.start, arr.start) + arrText });
  }
  const existing = new Set(hooksNode?.props.map((p) => p.key) ?? []);
  const newEvents = Object.entries(wanted).filter(([e, groups]) => !existing.has(e) && groups.length > 0);
  for (const [e] of newEvents) touched.add(e);
  if (touched.size === 0) return { text, events: [] };

  // Hooks level, then the root.
  let out: string;
  if (hooksNode && hooksProp) {
    const eventIndent = hooksNode.props.length ? lineIndent(source, hooksNode.props[0]!.keyStart) : lineIndent(source, hooksNode.start) + unit;
    const appended = newEvents.map(([e, g]) => `${JSON.stringify(e)}: ${render(g, unit, eventIndent)}`);
    const emptied = eventChildren.every((ch) => ch.text === null) && appended.length === 0;
    const rootChildren: Child[] = root.props.map((p) => {
      const span = propSpan(p);
      if (p !== hooksProp) return { span, text: source.slice(span.start, span.end) };
      if (emptied) return { span, text: null };
      return { span, text: source.slice(span.start, hooksNode.start) + rewriteContainer(source, hooksNode, eventChildren, appended, unit) };
    });
    out = source.slice(0, root.start) + rewriteContainer(source, root, rootChildren, [], unit) + source.slice(root.end);
  } else {
    const rootIndent = root.props.length ? lineIndent(source, root.props[0]!.keyStart) : lineIndent(source, root.start) + unit;
    const rootChildren: Child[] = root.props.map((p) => ({ span: propSpan(p), text: source.slice(p.keyStart, p.value.end) }));
    const hooksText = `"hooks": ${render(Object.fromEntries(newEvents), unit, rootIndent)}`;
    out = source.slice(0, root.start) + rewriteContainer(source, root, rootChildren, [hooksText], unit) + source.slice(root.end);
  }
  if (!text.trim() && !out.endsWith('\n')) out += '\n';
  return { text: out, events: [...touched].sort() };
}

function settingsPath(options: Pick<InstallOptions, 'settings' | 'home' | 'claudeConfigDir'>): string {
  if (options.settings) return path.resolve(options.settings);
  return path.join(claudeDir(options), 'settings.json');
}

function claudeDir(options: Pick<InstallOptions, 'home' | 'claudeConfigDir'>): string {
  return options.claudeConfigDir ?? path.join(options.home, '.claude');
}

/** The file a settings path really names: the end of its symlinks (even a dangling one), else itself. */
function linkTarget(file: string): string {
  let p = file;
  for (let i = 0; i < 40; i++) {
    let link: string;
    try {
      if (!fs.lstatSync(p).isSymbolicLink()) return p;
      link = fs.readlinkSync(p);
    } catch {
      return p;
    }
    p = path.resolve(path.dirname(p), link);
  }
  throw new KbError('USAGE', `${file}: too many levels of symbolic links`);
}

async function unifiedDiff(file: string, before: string, after: string): Promise<string> {
  if (before === after) return '';
  const { createTwoFilesPatch } = await import('diff');
  return createTwoFilesPatch(file, file, before, after, '', '', { context: 3 }).replace(/^Index: .*\n=+\n/, '');
}

function readJson(file: string): unknown {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/**
 * The installed and enabled git-kb plugin: a `git-kb@<marketplace>` key of `plugins` in
 * <claudeConfigDir>/plugins/installed_plugins.json (as Claude Code 2.1.328 writes it) that the settings file does
 * not disable (`enabledPlugins[key] === false`).
 */
export function installedPlugin(claudeConfigDir: string, settingsText = ''): string | undefined {
  const data = readJson(path.join(claudeConfigDir, 'plugins', 'installed_plugins.json')) as { plugins?: Record<string, unknown> } | undefined;
  const keys = Object.keys(data?.plugins ?? {}).filter((k) => /^git-kb@/.test(k));
  let enabled: Record<string, unknown> = {};
  try {
    const parsed = JSON.parse(settingsText || '{}') as { enabledPlugins?: Record<string, unknown> };
    enabled = parsed.enabledPlugins ?? {};
  } catch {
    /* checked by editSettings */
  }
  return keys.find((k) => enabled[k] !== false);
}

/** The first line of every shim install writes: how uninstall knows the file is ours. */
const SHIM_MARK = '# git-kb shim, written by "git-kb install"; "git-kb uninstall" removes it';

function shimText(root: string): string {
  return `#!/bin/sh\n${SHIM_MARK}\nexec node ${shellQuote(path.join(root, 'bin', 'git-kb'))} "$@"\n`;
}

function isOurShim(file: string): boolean {
  try {
    return fs.readFileSync(file, 'utf8').split('\n')[1] === SHIM_MARK;
  } catch {
    return false;
  }
}

function realpath(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return p;
  }
}

/** Puts `git-kb` in reach of the model's shell (install) or takes the shim away (uninstall). */
function reachCli(action: 'install' | 'uninstall', root: string, options: InstallOptions): CliReach {
  const binDir = path.resolve(options.binDir ?? path.join(options.home, '.local', 'bin'));
  const shim = path.join(binDir, 'git-kb');
  const pathVar = options.path ?? '';
  const onPath = pathVar.split(path.delimiter).some((d) => d && path.resolve(d) === binDir);
  if (action === 'uninstall') {
    if (!isOurShim(shim)) return { action: 'none' };
    if (!options.dryRun) fs.rmSync(shim, { force: true });
    return { action: 'removed', path: shim };
  }
  const found = findExecutable('git-kb', pathVar);
  const ours = realpath(path.join(root, 'bin', 'git-kb'));
  if (found && !isOurShim(found) && realpath(found) === ours) return { action: 'on-path', path: found };
  if (fs.existsSync(shim) && !isOurShim(shim)) return { action: 'kept', path: shim, ...(onPath ? {} : { notOnPath: true }) };
  const text = shimText(root);
  let same = false;
  try {
    same = fs.readFileSync(shim, 'utf8') === text;
  } catch {
    /* no shim yet */
  }
  if (!same && !options.dryRun) {
    fs.mkdirSync(binDir, { recursive: true });
    writeFileAtomic(shim, text, { mode: 0o755 });
  }
  return { action: same ? 'unchanged' : 'written', path: shim, ...(onPath ? {} : { notOnPath: true }) };
}

async function change(action: 'install' | 'uninstall', options: InstallOptions): Promise<InstallResult> {
  const file = settingsPath(options);
  let before = '';
  try {
    before = fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new KbError('USAGE', `cannot read ${file}: ${(err as Error).message}`);
  }
  const root = options.root ?? packageRoot();
  const plugin = installedPlugin(claudeDir(options), before);
  if (action === 'install' && plugin && !options.force) {
    throw new KbError(
      'CONFLICT',
      `the git-kb plugin (${plugin}) is installed and already runs these hooks; wiring them into ${file} too would run each twice. Keep the plugin (nothing to do), or remove it first ("claude plugin uninstall ${plugin}"); --force wires them anyway`,
      { plugin, settings: file },
    );
  }
  const desired = action === 'install' ? desiredHooks(root) : undefined;
  const exists = before !== '';
  const { text: after, events } = editSettings(before, desired, file);
  const changed = after !== before && !(action === 'uninstall' && !exists);
  const diff = changed ? await unifiedDiff(file, before, after) : '';
  if (changed && !options.dryRun) {
    let mode = 0o644;
    try {
      mode = fs.statSync(file).mode & 0o777;
    } catch {
      /* new file */
    }
    // NOTE: a symlinked settings file (dotfiles) stays a link: the write goes to the file it points to. An
    // uninstall that leaves an empty object removes the file: install created it from nothing (a settings file
    // of just "{}" means what no file means to Claude Code).
    if (action === 'uninstall' && after.trim() === '{}' && !isLink(file)) fs.rmSync(file, { force: true });
    else writeFileAtomic(linkTarget(file), after, { mode });
  }
  const cli = reachCli(action, root, options);
  return { action, settings: file, changed, dryRun: options.dryRun === true, diff, events: changed ? events : [], cli, ...(plugin ? { plugin } : {}) };
}

function isLink(file: string): boolean {
  try {
    return fs.lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

/** Where git-kb's hooks are wired: the settings file (when it runs git-kb-hook), the plugin, both or neither. */
export function hookWiring(options: Pick<InstallOptions, 'settings' | 'home' | 'claudeConfigDir'>): { settings: string; inSettings: boolean; plugin?: string } {
  const file = settingsPath(options);
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    /* no settings file */
  }
  const parsed = (() => {
    try {
      return JSON.parse(text || '{}') as { hooks?: Record<string, { hooks?: { command?: unknown }[] }[]> };
    } catch {
      return {};
    }
  })();
  const inSettings = Object.values(parsed.hooks ?? {}).some((groups) => Array.isArray(groups) && groups.some((g) => Array.isArray(g?.hooks) && g.hooks.some((h) => isOurCommand(h?.command))));
  const plugin = installedPlugin(claudeDir(options), text);
  return { settings: file, inSettings, ...(plugin ? { plugin } : {}) };
}

/** How Claude Code loads the installed git-kb plugin, read from its own records (pluginLoad). */
export interface PluginLoad {
  /** The key in installed_plugins.json: `git-kb@<marketplace>`. */
  plugin: string;
  marketplace: string;
  /** Where the marketplace comes from, as Claude Code recorded it: a folder, a URL, a GitHub repository. */
  source?: string;
  /**
   * The folder Claude Code runs the plugin from when it is not the installed copy: a marketplace added from a
   * local folder (`claude plugin marketplace add DIR`) serves a plugin of its own from that folder, and Claude
   * Code reads it there (`CLAUDE_PLUGIN_ROOT`), not from the copy at installPath.
   */
  folder?: string;
  /** Set when Claude Code cannot load the plugin: what is missing, and the fix. */
  problem?: { detail: string; fix: string };
}

type MarketplaceSource = { source?: unknown; path?: unknown; url?: unknown; repo?: unknown };

function sourceText(s: MarketplaceSource | undefined): string | undefined {
  for (const v of [s?.path, s?.url, s?.repo]) if (typeof v === 'string' && v) return v;
  return undefined;
}

/**
 * Whether Claude Code can load the installed and enabled git-kb plugin, from the records it keeps
 * (<claudeConfigDir>/plugins/known_marketplaces.json, and the settings file's extraKnownMarketplaces, as Claude
 * Code 2.1.328 writes them); undefined when no git-kb plugin is installed. Claude Code fails to load a plugin
 * whose marketplace it has no record of ("Marketplace M not found") or whose marketplace folder
 * (`installLocation`: the folder it was added from, or its clone under plugins/marketplaces/) is gone
 * ("failed to load: cache-miss"), though the installed copy is still there.
 */
export function pluginLoad(options: Pick<InstallOptions, 'settings' | 'home' | 'claudeConfigDir'>): PluginLoad | undefined {
  let text = '';
  try {
    text = fs.readFileSync(settingsPath(options), 'utf8');
  } catch {
    /* no settings file */
  }
  const plugin = installedPlugin(claudeDir(options), text);
  if (!plugin) return undefined;
  const at = plugin.indexOf('@');
  const name = plugin.slice(0, at);
  const marketplace = plugin.slice(at + 1);
  const known = readJson(path.join(claudeDir(options), 'plugins', 'known_marketplaces.json')) as Record<string, { source?: MarketplaceSource; installLocation?: unknown } | undefined> | undefined;
  const record = known && typeof known === 'object' ? known[marketplace] : undefined;
  const declared = (readJsonText(text) as { extraKnownMarketplaces?: Record<string, { source?: MarketplaceSource } | undefined> } | undefined)?.extraKnownMarketplaces?.[marketplace]?.source;
  const source = record?.source ?? declared;
  if (!source || typeof source !== 'object') {
    return {
      plugin,
      marketplace,
      problem: {
        detail: `Claude Code cannot load the plugin ${plugin}: it has no record of the marketplace ${marketplace} (neither plugins/known_marketplaces.json nor extraKnownMarketplaces in settings.json names it)`,
        fix: `run "claude plugin marketplace add <your git-kb clone's folder, or its git URL>", then "claude plugin install ${plugin}"`,
      },
    };
  }
  const from = sourceText(source);
  const local = source.source === 'directory' || source.source === 'file';
  const location = typeof record?.installLocation === 'string' ? record.installLocation : local && typeof source.path === 'string' ? source.path : undefined;
  const base = { plugin, marketplace, ...(from ? { source: from } : {}) };
  if (location && !fs.existsSync(location)) {
    return {
      ...base,
      problem: local
        ? {
            detail: `Claude Code cannot load the plugin ${plugin}: the folder its marketplace ${marketplace} was added from, ${location}, is gone (moved or deleted)`,
            fix: `run "claude plugin marketplace add <the folder's new path>" (a deleted clone: clone git-kb again first), or put the folder back at ${location}`,
          }
        : {
            detail: `Claude Code cannot load the plugin ${plugin}: the copy of its marketplace ${marketplace}${from ? ` (${from})` : ''}, ${location}, is gone`,
            fix: `run "claude plugin marketplace update ${marketplace}"`,
          },
    };
  }
  if (source.source !== 'directory' || !location) return base;
  // A local folder's own plugin (a relative source in its marketplace.json) is read from that folder.
  const manifest = readJson(path.join(location, '.claude-plugin', 'marketplace.json')) as { plugins?: { name?: unknown; source?: unknown }[] } | undefined;
  const entry = Array.isArray(manifest?.plugins) ? manifest.plugins.find((p) => p?.name === name) : undefined;
  return typeof entry?.source === 'string' ? { ...base, folder: path.resolve(location, entry.source) } : base;
}

/** One git-kb hook command as Claude Code would run it: where it is wired, its event, its command and timeout. */
export interface WiredHook {
  /** `settings`: the settings file; `plugin`: the installed plugin's hooks/hooks.json. */
  source: 'settings' | 'plugin';
  /** The file it is wired in (the settings file, or the plugin's hooks.json). */
  file: string;
  event: string;
  command: string;
  /** The plugin's folder (CLAUDE_PLUGIN_ROOT), for a plugin hook. */
  pluginRoot?: string;
  /** Set when the command cannot even be read: the plugin's folder or its hooks.json is gone or broken. */
  problem?: string;
}

/** The git-kb hook commands of a hooks object (`{Event: [{hooks: [{type, command}]}]}`). */
function ourCommands(hooks: unknown, pick: (command: string) => boolean): { event: string; command: string }[] {
  const out: { event: string; command: string }[] = [];
  if (!hooks || typeof hooks !== 'object') return out;
  for (const [event, groups] of Object.entries(hooks as Record<string, unknown>)) {
    if (!Array.isArray(groups)) continue;
    for (const g of groups as { hooks?: unknown }[]) {
      if (!Array.isArray(g?.hooks)) continue;
      for (const h of g.hooks as HookCommand[]) {
        if (h?.type !== 'command' || typeof h.command !== 'string' || !pick(h.command)) continue;
        out.push({ event, command: h.command });
      }
    }
  }
  return out;
}

/**
 * Every git-kb hook command Claude Code runs for this user: those of the settings file, and those of the installed
 * and enabled git-kb plugin when Claude Code can load it (pluginLoad): its hooks/hooks.json in the folder Claude
 * Code reads it from (a local marketplace folder), else in each `installPath` of installed_plugins.json.
 */
export function wiredHooks(options: Pick<InstallOptions, 'settings' | 'home' | 'claudeConfigDir'>): WiredHook[] {
  const file = settingsPath(options);
  let text = '';
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    /* no settings file */
  }
  const out: WiredHook[] = [];
  const parsed = readJsonText(text) as { hooks?: unknown } | undefined;
  for (const h of ourCommands(parsed?.hooks, isOurCommand)) out.push({ source: 'settings', file, ...h });
  const load = pluginLoad(options);
  // NOTE: a plugin Claude Code cannot load runs no hook (doctor's plugin check says why).
  if (!load || load.problem) return out;
  const { plugin } = load;
  const data = readJson(path.join(claudeDir(options), 'plugins', 'installed_plugins.json')) as { plugins?: Record<string, unknown> } | undefined;
  const installs = load.folder ? [{ installPath: load.folder }] : (([] as unknown[]).concat(data?.plugins?.[plugin] ?? []) as { installPath?: unknown }[]);
  for (const install of installs) {
    const root = typeof install?.installPath === 'string' ? install.installPath : undefined;
    const hooksFile = root ? path.join(root, 'hooks', 'hooks.json') : '';
    const broken = (problem: string): void => void out.push({ source: 'plugin', file: hooksFile || path.join(claudeDir(options), 'plugins', 'installed_plugins.json'), event: '', command: '', ...(root ? { pluginRoot: root } : {}), problem });
    if (!root) {
      broken(`${plugin} has no installPath in installed_plugins.json`);
      continue;
    }
    if (!fs.existsSync(root)) {
      broken(`the folder of ${plugin}, ${root}, is gone`);
      continue;
    }
    const hooks = readJson(hooksFile) as { hooks?: unknown } | undefined;
    if (!hooks) {
      broken(`${hooksFile} is missing or not JSON`);
      continue;
    }
    // The plugin's own hooks.json runs git-kb-hook through ${CLAUDE_PLUGIN_ROOT}: every command of it is ours.
    for (const h of ourCommands(hooks.hooks, () => true)) out.push({ source: 'plugin', file: hooksFile, pluginRoot: root, ...h, command: h.command.replaceAll('${CLAUDE_PLUGIN_ROOT}', root) });
  }
  return out;
}

function readJsonText(text: string): unknown {
  try {
    return JSON.parse(text || '{}') as unknown;
  } catch {
    return undefined;
  }
}

/** Wires git-kb's hooks into the Claude Code settings file and puts `git-kb` in reach of the model's shell. */
export function installHooks(options: InstallOptions): Promise<InstallResult> {
  return change('install', options);
}

/** Removes git-kb's hooks from the Claude Code settings file, and the shim install wrote. */
export function uninstallHooks(options: InstallOptions): Promise<InstallResult> {
  return change('uninstall', options);
}
