/**
 * Contract: the Examples section of every `--help` (spec/cli.md, "Help"): one to three real command lines per
 * verb and subcommand, keyed by the command's path (`add`, `host add`). main adds each to its command's help;
 * test/cli/help-examples.test.ts holds every command of the tree to having one.
 */
import type { Command } from 'commander';

export const EXAMPLES: Record<string, string[]> = {
  '': ['git-kb add --type decision --title "Use pnpm for workspaces" --tags js,tooling "Strict node_modules catch undeclared deps."', 'git-kb search "pnpm workspaces"', 'git-kb get kb-3lvn09zbq0 --links'],
  init: ['git-kb init', 'git-kb init --clone https://github.com/me/kb-data.git --default', 'git-kb init --data ~/notes/kb --remote https://github.com/me/kb-data.git'],
  add: [
    'git-kb add --type decision --title "Use pnpm for workspaces" --tags js,tooling "Strict node_modules catch undeclared deps."',
    'git-kb add --type bookmark --title "pytest fixtures" --url https://docs.pytest.org/en/stable/how-to/fixtures.html',
    'pbpaste | git-kb add --type lesson_learned --title "Flaky tests shared a port" --link relates_to:kb-0042',
  ],
  edit: ['git-kb edit kb-3lvn09zbq0', 'git-kb edit kb-3lvn09zbq0 --add-tag ci --append "Also seen on the nightly runs."', 'git-kb edit kb-0042 --link supersedes:kb-0007 --title "Use pnpm, not npm workspaces"'],
  delete: ['git-kb delete kb-3lvn09zbq0', 'git-kb delete kb-0007 kb-0008 --force'],
  adopt: ['git-kb adopt', 'git-kb adopt entries/Untitled.md --type decision'],
  commit: ['git-kb commit', 'git-kb commit -m "fix typos from Obsidian"'],
  get: ['git-kb get kb-3lvn09zbq0', 'git-kb get kb-0042 kb-0007 --links', 'git-kb get kb-0042 --json'],
  search: ['git-kb search "flaky tests" "port collision"', 'git-kb search deploy --type decision --since 30d', 'git-kb search docker --host pop-os --limit 5'],
  list: ['git-kb list', 'git-kb list --type lesson_learned --tag ci', 'git-kb list --since 7d --json'],
  tags: ['git-kb tags', 'git-kb tags --json'],
  lint: ['git-kb lint', 'git-kb lint --all --json'],
  import: ['git-kb import ~/Obsidian/Work', 'git-kb import ./notes --type factual_reference --tags-from-folders', 'git-kb import ./export --skip-invalid --redact'],
  history: ['git-kb history kb-3lvn09zbq0', 'git-kb history kb-0042 --json'],
  restore: ['git-kb restore kb-3lvn09zbq0', 'git-kb restore kb-0042 --to 1a2b3c4d5e6f'],
  status: ['git-kb status', 'git-kb status --json'],
  doctor: ['git-kb doctor', 'git-kb doctor --json'],
  sync: ['git-kb sync', 'git-kb sync --no-push', 'git-kb sync --timeout 20'],
  resolve: ['git-kb resolve kb-3lvn09zbq0 --keep ours', 'git-kb resolve --all --keep both'],
  install: ['git-kb install --dry-run', 'git-kb install', 'git-kb install --settings ~/.claude/settings.json --bin-dir ~/bin'],
  uninstall: ['git-kb uninstall --dry-run', 'git-kb uninstall'],
  host: ['git-kb host register pop-os --marker 192.168.1.20 --alias desktop', 'git-kb host add pop-os "The docker socket is /run/user/1000/docker.sock"', 'git-kb host load pop-os'],
  'host register': ['git-kb host register pop-os --marker 192.168.1.20 --alias desktop', 'git-kb host register prod-db --marker "/db-\\d+\\.internal/" --forbidden'],
  'host add': ['git-kb host add pop-os "The docker socket is /run/user/1000/docker.sock (rootless)"', 'git-kb host add nas --title "Backups run at 02:00" --tags backup --file notes.md'],
  'host load': ['git-kb host load pop-os', 'git-kb host load nas --json'],
  'host detect': ['git-kb host detect "ssh into 192.168.1.20 and restart docker"', 'echo "deploy to nas" | git-kb host detect'],
  'host list': ['git-kb host list', 'git-kb host list --json'],
  'host status': ['git-kb host status', 'git-kb host status --json'],
  'host forbid': ['git-kb host forbid customer-vpn', 'git-kb host forbid "/10\\.99\\.\\d+\\.\\d+/"'],
  session: ['git-kb session list --cwd ~/src/app', 'git-kb session show kb-3m1x0a2b9c --turns', 'git-kb session catch-up'],
  'session list': ['git-kb session list', 'git-kb session list --cwd ~/src/app --limit 5'],
  'session show': ['git-kb session show kb-3m1x0a2b9c', 'git-kb session show kb-3m1x0a2b9c --turn 3', 'git-kb session show 7f3c2a10 --grep "ECONNREFUSED"'],
  'session record': ['git-kb session record --transcript ~/.claude/projects/-home-me-app/7f3c2a10.jsonl'],
  'session catch-up': ['git-kb session catch-up', 'git-kb session catch-up --days 7'],
  compact: ['git-kb compact check kernel --baseline HEAD~1', 'git-kb compact rollback kb-0042 --baseline HEAD~2'],
  'compact check': ['git-kb compact check kernel --baseline HEAD~1', 'git-kb compact check kb-0042 --baseline 1a2b3c4d --target 1200', 'git-kb compact check host:pop-os --baseline HEAD~1 --json'],
  'compact rollback': ['git-kb compact rollback kernel --baseline HEAD~1', 'git-kb compact rollback host:pop-os --baseline 1a2b3c4d'],
  promote: ['git-kb promote kb-3lvn09zbq0'],
  prune: ['git-kb prune', 'git-kb prune --half-lives 6', 'git-kb prune --yes'],
  reflect: ['git-kb reflect --session kb-3m1x0a2b9c --dry-run', 'git-kb reflect --transcript ~/.claude/projects/-home-me-app/7f3c2a10.jsonl'],
  relink: ['git-kb relink', 'git-kb relink --json'],
  mcp: ['claude mcp add --scope user git-kb -- git-kb mcp', 'git-kb mcp --data ~/notes/kb'],
  completion: ['source <(git-kb completion bash)', 'git-kb completion zsh > "${fpath[1]}/_git-kb"', 'git-kb completion fish | source'],
};

/** The command's path from below the program: `add`, `host add`; '' for the program itself. */
export function commandPath(cmd: Command): string {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
}

/** The Examples section of a command's help, or undefined when it has none. */
export function examplesText(path: string): string | undefined {
  const lines = EXAMPLES[path];
  return lines?.length ? `\nExamples:\n${lines.map((l) => `  $ ${l}`).join('\n')}` : undefined;
}

/** Adds the Examples section to the help of `cmd` and every command below it. */
export function addExamples(cmd: Command): void {
  const text = examplesText(commandPath(cmd));
  if (text) cmd.addHelpText('after', text);
  for (const sub of cmd.commands) addExamples(sub);
}
