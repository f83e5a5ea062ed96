import { describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { parseDocumentUniqueKeys } from '../src/core/format/yaml-error.js';
import {
  applyForbiddenPattern,
  applyHostChange,
  compileMatcher,
  findHost,
  forbiddenMatch,
  hostMatcher,
  markerProblem,
  matchHosts,
  parseHosts,
  parseHostsForEdit,
  type HostChange,
  type HostRegistry,
} from '../src/core/hosts/hosts.js';

function parse(text: string): ReturnType<typeof parseHosts> {
  return parseHosts(text);
}

function registry(text: string): HostRegistry {
  const { registry, problems } = parse(text);
  expect(problems).toEqual([]);
  return registry;
}

const GOOD = `# my machines
hosts:
  pop-os:
    aliases: [popos, desktop-box]
    markers:
      - 192.168.1.20
      - /pop-?os\\.lan/i
    description: main desktop
  dssh:
    markers: [debian-nas]
  hssh:
    forbidden: true
    markers: [webspace.example.net]
forbidden_patterns:
  - whatbox
  - /seedbox-\\d+/
`;

describe('parseHosts: a valid registry', () => {
  it('reads hosts, aliases, markers, flags, description and global patterns', () => {
    const r = registry(GOOD);
    expect(r.hosts.map((h) => [h.key, h.aliases, h.markers, h.forbidden, h.line])).toEqual([
      ['pop-os', ['popos', 'desktop-box'], ['192.168.1.20', '/pop-?os\\.lan/i'], false, 3],
      ['dssh', [], ['debian-nas'], false, 9],
      ['hssh', [], ['webspace.example.net'], true, 11],
    ]);
    expect(r.hosts[0]!.description).toBe('main desktop');
    expect(r.forbiddenPatterns).toEqual(['whatbox', '/seedbox-\\d+/']);
  });

  it('takes an empty file, a file without hosts and a host with no settings', () => {
    expect(registry('')).toEqual({ hosts: [], forbiddenPatterns: [] });
    expect(registry('# nothing yet\n')).toEqual({ hosts: [], forbiddenPatterns: [] });
    expect(registry('hosts:\n  box1:\n').hosts).toEqual([{ key: 'box1', aliases: [], markers: [], forbidden: false, line: 2 }]);
  });

  it('finds a host by key or alias, case-insensitively', () => {
    const r = registry(GOOD);
    expect(findHost(r, 'pop-os')?.key).toBe('pop-os');
    expect(findHost(r, 'PopOS')?.key).toBe('pop-os');
    expect(findHost(r, 'nope')).toBeUndefined();
  });
});

describe('parseHosts: every problem with its line, nothing silently dropped', () => {
  const cases: [string, string, string, number][] = [
    ['a bad key', 'hosts:\n  Pop_OS:\n    markers: [x1]\n', 'host-key', 2],
    ['a key with a space', 'hosts:\n  "my box":\n', 'host-key', 2],
    ['a regex that does not compile', 'hosts:\n  box:\n    markers:\n      - /a(b/\n', 'host-marker', 4],
    ['a regex that matches empty text', 'hosts:\n  box:\n    markers: [/x*/]\n', 'host-marker', 3],
    ['a regex that could run away', 'hosts:\n  box:\n    markers: ["/(a+)+b/"]\n', 'host-marker', 3],
    ['a regex with the g flag', 'hosts:\n  box:\n    markers: [/box/g]\n', 'host-marker', 3],
    ['a one-letter marker', 'hosts:\n  box:\n    markers: [x]\n', 'host-marker', 3],
    ['an empty marker', 'hosts:\n  box:\n    markers: [""]\n', 'host-marker', 3],
    ['a typo in a field name (forbiden)', 'hosts:\n  box:\n    forbiden: true\n', 'host-field', 3],
    ['forbidden that is not a boolean', 'hosts:\n  box:\n    forbidden: "yes"\n', 'host-field', 3],
    ['markers that are not a list of strings', 'hosts:\n  box:\n    markers: {a: 1}\n', 'host-field', 3],
    ['a pattern as an alias', 'hosts:\n  box:\n    aliases: [/b.x/]\n', 'host-alias', 3],
    ['an unknown top-level field', 'hostz:\n  box:\n', 'hosts-field', 1],
    ['hosts as a list', 'hosts:\n  - box\n', 'hosts-field', 2],
    ['a bad global pattern', 'forbidden_patterns:\n  - /(/\n', 'forbidden-pattern', 2],
    ['a key written twice', 'hosts:\n  box:\n  box:\n', 'hosts-yaml', 2],
    ['malformed YAML (an unclosed bracket, at the line it opens)', 'hosts:\n  box: [a\n', 'hosts-yaml', 2],
    ['a document that is not a mapping', '- a\n- b\n', 'hosts-yaml', 1],
  ];
  for (const [what, text, rule, line] of cases) {
    it(`refuses ${what}`, () => {
      const { problems } = parse(text);
      expect(problems.length, JSON.stringify(problems)).toBeGreaterThan(0);
      expect(problems[0]!.rule).toBe(rule);
      expect(problems[0]!.line).toBe(line);
      expect(problems[0]!.file).toBe('hosts.yaml');
    });
  }

  it('refuses a marker shared by two hosts, naming both and their lines', () => {
    const { problems } = parse('hosts:\n  alpha:\n    markers: [nas-1]\n  beta:\n    markers: [NAS-1]\n');
    expect(problems).toHaveLength(1);
    expect(problems[0]!.rule).toBe('marker-duplicate');
    expect(problems[0]!.message).toContain('"beta" (line 4)');
    expect(problems[0]!.message).toContain('"alpha" (line 2)');
  });

  it("refuses a host's key used as another host's alias", () => {
    expect(parse('hosts:\n  alpha:\n  beta:\n    aliases: [alpha]\n').problems.map((p) => p.rule)).toEqual(['marker-duplicate']);
  });

  it('keeps a repeated marker within one host once', () => {
    expect(registry('hosts:\n  box:\n    markers: [box, BOX, nas]\n').hosts[0]!.markers).toEqual(['box', 'nas']);
  });

  it('markerProblem explains each refusal', () => {
    expect(markerProblem('10.0.0.7')).toBeUndefined();
    expect(markerProblem('/nas-\\d+/i')).toBeUndefined();
    expect(markerProblem(' box')).toMatch(/white space/);
    expect(markerProblem('/[/')).toMatch(/does not compile/);
    expect(markerProblem('/.*/')).toMatch(/empty text/);
  });
});

describe('matching: the documented rule', () => {
  const r = registry(GOOD);
  const m = hostMatcher(r);
  const hosts = (text: string): string[] => matchHosts(m, text);

  it('matches keys, aliases and markers as whole words, case-insensitively', () => {
    expect(hosts('nginx on Pop-OS is down')).toEqual(['pop-os']);
    expect(hosts('ssh into the desktop-box')).toEqual(['pop-os']);
    expect(hosts('the debian-nas ran out of space')).toEqual(['dssh']);
    expect(hosts('compare DSSH with popos')).toEqual(['dssh', 'pop-os']); // order of first mention
  });

  it('never matches inside a longer word or a longer IP', () => {
    expect(hosts('pop-os2 is another machine')).toEqual([]);
    expect(hosts('mypop-os')).toEqual([]);
    expect(hosts('192.168.1.200 and 10.192.168.1.20x')).toEqual([]);
    expect(hosts('xdssh_backup')).toEqual([]);
  });

  it('treats dots, slashes, colons and quotes as word breaks', () => {
    expect(hosts('dssh.local:22')).toEqual(['dssh']);
    expect(hosts('curl http://192.168.1.20:8080/api')).toEqual(['pop-os']);
    expect(hosts('"popos"')).toEqual(['pop-os']);
    expect(hosts('ping 192.168.1.20.')).toEqual(['pop-os']);
  });

  it('runs regex markers with their flags', () => {
    expect(hosts('resolve POPOS.LAN please')).toEqual(['pop-os']);
    expect(hosts('the host pop-os.lan')).toEqual(['pop-os']);
  });

  it('matches inside code fences and inline code too', () => {
    expect(hosts('look at this log:\n```\nupstream 192.168.1.20 timed out\n```')).toEqual(['pop-os']);
    expect(hosts('run `ssh dssh uptime`')).toEqual(['dssh']);
  });

  it('leaves forbidden hosts out of the matcher, and finds them with forbiddenMatch', () => {
    expect(hosts('deploy to hssh via webspace.example.net')).toEqual([]);
    expect(forbiddenMatch(r, 'deploy to hssh')).toEqual({ kind: 'host', name: 'hssh' });
    expect(forbiddenMatch(r, 'upload to webspace.example.net')).toEqual({ kind: 'host', name: 'hssh' });
    expect(forbiddenMatch(r, 'rsync to WhatBox')).toEqual({ kind: 'pattern', name: '1' });
    expect(forbiddenMatch(r, 'the seedbox-42 box')).toEqual({ kind: 'pattern', name: '2' });
    expect(forbiddenMatch(r, 'nothing here about pop-os')).toBeUndefined();
  });

  it('finds the right hosts among 200 on a long prompt (its speed is bench/hook-speed.mjs\'s)', () => {
    const groups = Array.from({ length: 200 }, (_, i) => ({ label: `host${i}`, terms: [`host${i}`, `10.1.${i >> 8}.${i & 255}`, `/srv-${i}\\.example/`] }));
    const big = compileMatcher(groups);
    const text = `${'lorem ipsum dolor sit amet 10.1.0.1x '.repeat(400)} ssh host137 and srv-42.example`;
    expect(matchHosts(big, text)).toEqual(['host137', 'host42']);
  });

  it('a forbidden marker cannot be dodged by a suffix, a plural or a separator, and takes nothing more after a digit', () => {
    const f = registry(`hosts:\n  hssh:\n    forbidden: true\n  edge:\n    forbidden: true\n    markers: [10.0.0.7]\nforbidden_patterns:\n  - whatbox\n  - seedbox\n`);
    for (const text of ['rsync to whatbox-07', 'the whatbox_2 box', 'all the whatboxes', 'WhatBox.eu', 'prod-whatbox', 'hssh-2', 'ssh hssh-2.lan', 'seedbox-2', 'Seedbox2', 'seedbox-eu', 'host 10.0.0.7:22', '(whatbox)']) {
      expect(forbiddenMatch(f, text), text).toBeDefined();
    }
    for (const text of ['whatboxing the data', 'mywhatbox', 'hsshd', '10.0.0.70', '110.0.0.7', 'seedboxer']) {
      expect(forbiddenMatch(f, text), text).toBeUndefined();
    }
    // Allowed hosts keep the whole-word rule.
    expect(hosts('pop-os2 is another box')).toEqual([]);
  });
});

describe('editing hosts.yaml', () => {
  it('adds a host, merges markers and aliases, and keeps comments and order', () => {
    let text = applyHostChange(GOOD, { key: 'dssh', markers: ['10.0.0.7', 'debian-nas'], aliases: ['nas'] });
    text = applyHostChange(text, { key: 'newbox', markers: ['/newbox-\\d/'] });
    expect(text.startsWith('# my machines\n')).toBe(true);
    const r = registry(text);
    expect(r.hosts.map((h) => h.key)).toEqual(['pop-os', 'dssh', 'hssh', 'newbox']);
    expect(r.hosts[1]).toMatchObject({ aliases: ['nas'], markers: ['debian-nas', '10.0.0.7'] });
    expect(r.hosts[3]!.markers).toEqual(['/newbox-\\d/']);
    expect(r.forbiddenPatterns).toEqual(['whatbox', '/seedbox-\\d+/']);
  });

  it('starts a fresh file with a header, writes a bare host as `key:` and sets and clears forbidden', () => {
    let text = applyHostChange('', { key: 'box' });
    expect(text).toMatch(/^# git-kb host registry/);
    expect(text).toContain('\nhosts:\n  box:');
    expect(text).not.toContain('{}');
    text = applyHostChange(text, { key: 'box', forbidden: true });
    expect(registry(text).hosts[0]!.forbidden).toBe(true);
    text = applyHostChange(text, { key: 'box', forbidden: false });
    expect(registry(text).hosts[0]!.forbidden).toBe(false);
    text = applyForbiddenPattern(text, 'secret-lab');
    text = applyForbiddenPattern(text, 'secret-lab');
    expect(registry(text).forbiddenPatterns).toEqual(['secret-lab']);
  });

  it('an edit of the document the check parsed gives the text applyHostChange and applyForbiddenPattern give', () => {
    const texts = [
      GOOD,
      GOOD.replace(/\n/g, '\r\n'),
      `\uFEFF${GOOD}`,
      '',
      '\n',
      '# only a comment\n',
      'hosts:\n',
      'hosts: {box: {markers: [box.lan]}}\n',
      'version: 1\nhosts:\n  box: # the nas\n    description: |\n      two\n      lines\n  &a other:\n',
    ];
    const changes: HostChange[] = [
      { key: 'box', markers: ['10.0.0.7'], aliases: ['nas'] },
      { key: 'newbox', forbidden: true, description: 'kept out' },
      { key: 'dssh', forbidden: false },
    ];
    for (const text of texts) {
      for (const change of changes) {
        const edit = parseHostsForEdit(text);
        expect(edit.problems, JSON.stringify(text)).toEqual(parseHosts(text).problems);
        expect(edit.registry).toEqual(parseHosts(text).registry);
        const once = edit.withHost(change);
        expect(once, JSON.stringify([text, change])).toBe(applyHostChange(text, change));
        // A second edit starts again from the text, never from the document the first one changed.
        expect(edit.withHost(change)).toBe(once);
      }
      // The same outcome, a thrown error included (a text without a mapping).
      const outcome = (fn: () => string): string => {
        try {
          return fn();
        } catch (err) {
          return `threw ${(err as Error).message}`;
        }
      };
      expect(outcome(() => parseHostsForEdit(text).withForbiddenPattern('secret-lab'))).toBe(outcome(() => applyForbiddenPattern(text, 'secret-lab')));
    }
  });
});

describe('a large hosts.yaml (hostile battery F3): repeated keys found in linear time, with the library\'s errors', () => {
  // NOTE: no timings. The yaml library's own repeated-key check compares each key with every key before it (32,000
  // hosts took 11 s); parseHosts never asks for it, and parseDocumentUniqueKeys must give the errors it would.
  const libraryErrors = (src: string): string[] =>
    YAML.parseDocument(src, { uniqueKeys: true, lineCounter: new YAML.LineCounter() }).errors.map((e) => `${e.code}@${e.pos[0]}:${e.linePos?.[0]?.line}`);
  const linearErrors = (src: string): string[] => parseDocumentUniqueKeys(src, new YAML.LineCounter()).errors.map((e) => `${e.code}@${e.pos[0]}:${e.linePos?.[0]?.line}`);

  it('gives the yaml library\'s errors, place and order, on 1,000 generated documents (most with a repeated key)', () => {
    let seed = 7;
    const pick = <T>(list: T[]): T => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return list[seed % list.length]!;
    };
    const keys = ['a', 'b', '"a"', "'b'", '1', '"1"', '&x a', '!!str a', '? a\n  :', 'a ', '~', 'null', '.nan', '[a]', '{a: 1}', '*x'];
    const values = ['', ' 1', ' [x]', ' {a: 1, a: 2, b: 3}', ' {a, a}', ' |\n      x\n', ' # c', ' "q', ' [a', ' x\n     y', '\n      a: 1\n      a: 2', '\n      - 1', ' &x 2', ' *x', '   '];
    let repeated = 0;
    for (let d = 0; d < 1000; d++) {
      const top = pick([true, false]);
      let src = top ? 'hosts:\n' : '';
      const indent = top ? '  ' : '';
      for (let n = pick([1, 2, 3, 4, 5, 6]); n > 0; n--) src += pick([`${indent}# c\n`, '\n', ...Array(8).fill(null).map(() => `${indent}${pick(keys)}:${pick(values)}\n`)]);
      const expected = libraryErrors(src);
      if (expected.some((e) => e.startsWith('DUPLICATE_KEY'))) repeated++;
      expect(linearErrors(src), JSON.stringify(src)).toEqual(expected);
    }
    expect(repeated).toBeGreaterThan(300);
  });

  it('names the line the library names: a repeated host key after one with no settings is reported at the first', () => {
    expect(linearErrors('hosts:\n  box:\n  box:\n')).toEqual(['DUPLICATE_KEY@13:2']);
    expect(linearErrors('hosts:\n  box: {}\n  box: {}\n')).toEqual(libraryErrors('hosts:\n  box: {}\n  box: {}\n'));
    expect(parse('hosts:\n  box: {}\n  box: {}\n').problems).toEqual([{ rule: 'hosts-yaml', message: 'malformed YAML: Map keys must be unique', file: 'hosts.yaml', line: 3 }]);
  });

  it('never runs the library\'s quadratic check, and reads 5,000 hosts, or reports the one written twice at its line', () => {
    const spy = vi.spyOn(YAML, 'parseDocument');
    try {
      let text = 'hosts:\n';
      for (let i = 0; i < 5000; i++) text += `  h${String(i).padStart(5, '0')}:\n    description: d${i}\n`;
      const { registry: r, problems } = parse(text);
      expect(problems).toEqual([]);
      expect(r.hosts).toHaveLength(5000);
      expect(r.hosts[4999]).toMatchObject({ key: 'h04999', description: 'd4999', line: 10000 });
      const twice = parse(`${text}  h00007:\n    description: again\n`).problems;
      expect(twice).toEqual([{ rule: 'hosts-yaml', message: 'malformed YAML: Map keys must be unique', file: 'hosts.yaml', line: 10002 }]);
      expect(spy).toHaveBeenCalled();
      for (const call of spy.mock.calls) expect((call[1] as { uniqueKeys?: unknown } | undefined)?.uniqueKeys).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });
});
