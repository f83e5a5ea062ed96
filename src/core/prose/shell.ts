/**
 * Contract: a shell-words lexer for the prose extractor (commands.ts). `lexShell` splits a Bash command into
 * simple commands with their words unquoted (quotes, backslash escapes, `$'...'`, line continuations), their
 * heredoc or `<<<` stdin, and the command piped into each; `$(...)` of a plain `echo`/`printf`/`cat` becomes its
 * output. `commandWords` drops assignments and prefixes (`sudo`, `env`, `if`, ...), `stdinOf` is what a command
 * reads on stdin when that is plain from the text. Pure, linear in the command's length, never throws on any input.
 */

/** Nesting depth of `$(...)` that is lexed; deeper ones are kept as text. */
const MAX_SHELL_DEPTH = 6;

/** One simple command: its words, its stdin when given in the text, and the command piped into it. */
export interface ShellCommand {
  words: string[];
  stdin?: string;
  pipedFrom?: ShellCommand;
}

const META = ' \t\n;&|()<>';
const ANSI_C_ESCAPES: Readonly<Record<string, string>> = {
  n: '\n', t: '\t', r: '\r', a: '\x07', b: '\b', e: '\x1b', E: '\x1b', f: '\f', v: '\v', '\\': '\\', "'": "'", '"': '"', '?': '?',
};

class ShellLexer {
  pos: number;
  readonly commands: ShellCommand[] = [];
  private cur: ShellCommand = { words: [] };
  private pending: Array<{ delim: string; strip: boolean; cmd: ShellCommand }> = [];

  constructor(
    private readonly s: string,
    start: number,
    private readonly depth: number,
  ) {
    this.pos = start;
  }

  /** Lexes until the end, or, inside `$(`, until its closing parenthesis (consumed). */
  run(inSubst: boolean): void {
    const s = this.s;
    let parens = 0;
    while (this.pos < s.length) {
      const c = s[this.pos] as string;
      const d = s[this.pos + 1];
      if (c === ' ' || c === '\t' || c === '\r') this.pos++;
      else if (c === '\\' && d === '\n') this.pos += 2;
      else if (c === '\n') {
        this.pos++;
        this.end();
        this.readHeredocs();
      } else if (c === '#') {
        const nl = s.indexOf('\n', this.pos);
        this.pos = nl < 0 ? s.length : nl;
      } else if (c === ';') {
        this.pos += d === ';' || d === '&' ? 2 : 1;
        this.end();
      } else if (c === '&' && d === '>') this.redirect();
      else if (c === '&') {
        this.pos += d === '&' ? 2 : 1;
        this.end();
      } else if (c === '|') {
        const or = d === '|';
        this.pos += or || d === '&' ? 2 : 1;
        this.end(or ? undefined : '|');
      } else if (c === '(') {
        parens++;
        this.pos++;
        this.end();
      } else if (c === ')') {
        this.pos++;
        this.end();
        if (inSubst && parens === 0) return;
        parens = Math.max(0, parens - 1);
      } else if (c === '<' || c === '>') this.redirect();
      else {
        const before = this.pos;
        const w = this.readWord();
        if (/^\d+$/.test(w) && (s[this.pos] === '<' || s[this.pos] === '>')) this.redirect();
        else this.cur.words.push(w);
        if (this.pos === before) this.pos++;
      }
    }
    this.end();
  }

  private end(op?: '|'): void {
    const cur = this.cur;
    if (cur.words.length > 0 || cur.stdin !== undefined || this.pending.some((p) => p.cmd === cur)) {
      if (this.commands.length < 10_000) this.commands.push(cur);
    }
    this.cur = op === '|' ? { words: [], pipedFrom: cur } : { words: [] };
  }

  private redirect(): void {
    const s = this.s;
    let op = '';
    if (s[this.pos] === '&') {
      op = '&';
      this.pos++;
    }
    for (const o of ['<<<', '<<-', '<<', '>>', '>&', '<&', '>|', '<>', '>', '<']) {
      if (s.startsWith(o, this.pos)) {
        op += o;
        this.pos += o.length;
        break;
      }
    }
    while (s[this.pos] === ' ' || s[this.pos] === '\t') this.pos++;
    const target = META.includes(s[this.pos] ?? ' ') ? '' : this.readWord();
    if (op === '<<' || op === '<<-') this.pending.push({ delim: target, strip: op === '<<-', cmd: this.cur });
    else if (op === '<<<') this.cur.stdin = `${target}\n`;
  }

  private readHeredocs(): void {
    const s = this.s;
    for (const doc of this.pending) {
      const body: string[] = [];
      while (this.pos < s.length) {
        const nl = s.indexOf('\n', this.pos);
        const end = nl < 0 ? s.length : nl;
        let line = s.slice(this.pos, end).replace(/\r$/, '');
        if (doc.strip) line = line.replace(/^\t+/, '');
        this.pos = nl < 0 ? s.length : nl + 1;
        if (line === doc.delim) break;
        body.push(line);
      }
      doc.cmd.stdin = body.length > 0 ? `${body.join('\n')}\n` : '';
    }
    this.pending = [];
  }

  private readWord(): string {
    const s = this.s;
    let out = '';
    while (this.pos < s.length) {
      const c = s[this.pos] as string;
      if (META.includes(c)) break;
      if (c === '\\') {
        const d = s[this.pos + 1];
        if (d !== '\n' && d !== undefined) out += d;
        this.pos += 2;
      } else if (c === "'") {
        const close = s.indexOf("'", this.pos + 1);
        const end = close < 0 ? s.length : close;
        out += s.slice(this.pos + 1, end);
        this.pos = end + 1;
      } else if (c === '"') out += this.readDouble();
      else if (c === '$') out += this.readDollar(false);
      else if (c === '`') out += this.readBacktick();
      else {
        let j = this.pos + 1;
        while (j < s.length && !META.includes(s[j] as string) && !`\\'"$\``.includes(s[j] as string)) j++;
        out += s.slice(this.pos, j);
        this.pos = j;
      }
    }
    return out;
  }

  private readDouble(): string {
    const s = this.s;
    let out = '';
    this.pos++;
    while (this.pos < s.length) {
      const c = s[this.pos];
      if (c === '"') {
        this.pos++;
        return out;
      }
      if (c === '\\') {
        const d = s[this.pos + 1];
        if (d === '\n') this.pos += 2;
        else if (d === '$' || d === '`' || d === '"' || d === '\\') {
          out += d;
          this.pos += 2;
        } else {
          out += '\\';
          this.pos++;
        }
      } else if (c === '$') out += this.readDollar(true);
      else if (c === '`') out += this.readBacktick();
      else {
        let j = this.pos + 1;
        while (j < s.length && !'"\\$`'.includes(s[j] as string)) j++;
        out += s.slice(this.pos, j);
        this.pos = j;
      }
    }
    return out;
  }

  private readDollar(inDouble: boolean): string {
    const s = this.s;
    const start = this.pos;
    const d = s[this.pos + 1];
    if (d === "'" && !inDouble) return this.readAnsiC();
    if (d === '"' && !inDouble) {
      this.pos++;
      return this.readDouble();
    }
    if (d === '(' && s[this.pos + 2] === '(') {
      this.skipBalanced('(', ')');
      return s.slice(start, this.pos);
    }
    if (d === '(') {
      if (this.depth >= MAX_SHELL_DEPTH) {
        this.skipBalanced('(', ')');
        return s.slice(start, this.pos);
      }
      const sub = new ShellLexer(s, this.pos + 2, this.depth + 1);
      sub.run(true);
      this.pos = sub.pos;
      return substitutionValue(sub.commands) ?? s.slice(start, this.pos);
    }
    if (d === '{') {
      this.skipBalanced('{', '}');
      return s.slice(start, this.pos);
    }
    this.pos++;
    return '$';
  }

  /** Skips from `$` over a naively balanced group; used where exact lexing is not worth it. */
  private skipBalanced(open: string, close: string): void {
    const s = this.s;
    let depth = 0;
    for (let j = this.pos + 1; j < s.length; j++) {
      if (s[j] === open) depth++;
      else if (s[j] === close && --depth <= 0) {
        this.pos = j + 1;
        return;
      }
    }
    this.pos = s.length;
  }

  private readBacktick(): string {
    const s = this.s;
    const start = this.pos;
    let j = this.pos + 1;
    while (j < s.length && s[j] !== '`') j += s[j] === '\\' ? 2 : 1;
    this.pos = Math.min(s.length, j + 1);
    return s.slice(start, this.pos);
  }

  private readAnsiC(): string {
    const s = this.s;
    let out = '';
    let j = this.pos + 2;
    while (j < s.length && s[j] !== "'") {
      if (s[j] !== '\\') {
        out += s[j];
        j++;
        continue;
      }
      const e = s[j + 1] ?? '';
      const hex = e === 'x' ? /^[0-9a-fA-F]{1,2}/.exec(s.slice(j + 2, j + 4)) : e === 'u' || e === 'U' ? /^[0-9a-fA-F]{1,8}/.exec(s.slice(j + 2, j + (e === 'u' ? 6 : 10))) : null;
      const oct = /^[0-7]{1,3}/.exec(s.slice(j + 1, j + 4));
      const simple = ANSI_C_ESCAPES[e];
      if (simple !== undefined) {
        out += simple;
        j += 2;
      } else if (hex) {
        const cp = parseInt(hex[0], 16);
        out += cp <= 0x10ffff ? String.fromCodePoint(cp) : '';
        j += 2 + hex[0].length;
      } else if (oct) {
        out += String.fromCharCode(parseInt(oct[0], 8));
        j += 1 + oct[0].length;
      } else {
        out += `\\${e}`;
        j += 2;
      }
    }
    this.pos = Math.min(s.length, j + 1);
    return out;
  }
}

/** The simple commands of a shell command line. */
export function lexShell(src: string): ShellCommand[] {
  const lexer = new ShellLexer(src, 0, 0);
  lexer.run(false);
  return lexer.commands;
}

const PREFIX_WORDS = new Set(['sudo', 'env', 'command', 'exec', 'nohup', 'time', 'builtin', 'then', 'do', 'else', 'elif', 'if', 'while', 'until', '{', '!']);

/** A command's words from the program name on (assignments and prefix words dropped). */
export function commandWords(cmd: ShellCommand): string[] {
  const w = cmd.words;
  let k = 0;
  while (k < w.length) {
    const word = w[k] as string;
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) k++;
    else if (PREFIX_WORDS.has(word)) {
      k++;
      if (word === 'env' || word === 'sudo') while (k < w.length && (w[k] as string).startsWith('-')) k++;
    } else break;
  }
  return w.slice(k);
}

function unescapePrintf(s: string): string {
  return s.replace(/\\(n|t|\\|r)|%%/g, (m, e: string | undefined) => (m === '%%' ? '%' : e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : '\\'));
}

/** What a command writes to stdout, when that is plain from its words (echo, printf, cat of a heredoc). */
function commandOutput(cmd: ShellCommand): string | undefined {
  const argv = commandWords(cmd);
  const prog = argv[0];
  if (prog === 'cat' && argv.length === 1) return cmd.stdin;
  if (prog === 'echo') {
    let k = 1;
    let escapes = false;
    while (k < argv.length && /^-[neE]+$/.test(argv[k] as string)) escapes ||= (argv[k++] as string).includes('e');
    const text = argv.slice(k).join(' ');
    return `${escapes ? unescapePrintf(text) : text}\n`;
  }
  if (prog === 'printf' && argv.length >= 2) {
    const args = argv.slice(2);
    const fmt = argv[1] as string;
    return unescapePrintf(args.length === 0 ? fmt : fmt.replace(/%s/g, () => args.shift() ?? ''));
  }
  return undefined;
}

function substitutionValue(cmds: ShellCommand[]): string | undefined {
  if (cmds.length !== 1) return undefined;
  const text = commandOutput(cmds[0] as ShellCommand);
  return text?.replace(/\n+$/, '');
}

/** What `cmd` reads on stdin, when the text says: a heredoc, `<<<`, or the output of a plain command piped in. */
export function stdinOf(cmd: ShellCommand): string | undefined {
  if (cmd.stdin !== undefined) return cmd.stdin;
  return cmd.pipedFrom ? commandOutput(cmd.pipedFrom) : undefined;
}
