/**
 * Shared by the reflection tests: the recorded fixture of a session on build-box.lan, the hosts.yaml it is tested
 * with, the scripted proposals the stand-in answers the reflection child with (the real `claude -p`, told apart by
 * its system prompt: isReflectRequest), and what each becomes.
 */
import path from 'node:path';
import { ROOT } from '../helpers/cli.js';

export { isReflectRequest, verdictReply as structuredReply } from '../e2e/claude-support.js';

export const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'transcripts', 'reflect-build-box.jsonl');
export const FIXTURE_SESSION = '7d0c5e1a-2b3c-4d5e-8f90-1a2b3c4d5e6f';
/** The token the fixture's `cat /etc/ci/cleanup.conf` printed: it must reach nothing git-kb writes or prints. */
export const FIXTURE_TOKEN = 'ghp_R3flectS3cretT0kenAbcdefghijklmn1234';

export const HOSTS_YAML = `hosts:
  build-box:
    markers: [build-box.lan]
  vault-prod:
    forbidden: true
    markers: [vault.prod.example.com]
forbidden_patterns:
  - seedbox-secret
`;

/** A good host fact: found through root's crontab, quoted from a command output. */
export const GOOD_FACT = {
  kind: 'host_fact',
  host: 'build-box',
  title: "CI cache cleanup runs from root's crontab",
  text: "On build-box the CI cache cleanup (/opt/ci/cleanup.sh) runs at 03:00 from root's crontab, not from the ci user's, with --keep-days 30.",
  quote: '0 3 * * * /opt/ci/cleanup.sh --keep-days 30',
};

/** The scripted proposals: one of each case of the issue, in this order. */
export const PROPOSALS = [
  GOOD_FACT,
  {
    kind: 'host_fact',
    host: 'build-box',
    title: 'The CI cache is a disk of its own',
    text: 'The CI cache /var/cache/ci on build-box is its own 200G disk, /dev/sdb1.',
    quote: '/dev/sdb1 200G 199G 1.0G 100% /var/cache/ci',
  },
  {
    kind: 'lesson',
    pattern_key: 'rsync-trailing-slash',
    title: 'rsync copies the folder itself without a trailing slash',
    text: 'Without a trailing slash on the source, rsync copies the directory itself into the destination.',
    quote: 'rsync copies the directory itself without a trailing slash',
  },
  {
    kind: 'host_fact',
    host: 'build-box',
    title: 'The CI token of build-box',
    text: `The cleanup config holds the token ${FIXTURE_TOKEN} for the GitHub API.`,
    quote: 'KEEP_DAYS=30',
  },
  {
    kind: 'host_fact',
    host: 'vault-prod',
    title: 'vault.prod.example.com unseals by hand',
    text: 'vault.prod.example.com must be unsealed by hand after a reboot.',
    quote: "cleanup runs from root's crontab",
  },
  {
    kind: 'host_fact',
    host: 'build-box',
    title: 'Build artefacts go to /var/cache/ci/builds',
    text: 'On build-box the builds write their artefacts under /var/cache/ci/builds, which the old cleanup never pruned, so the cache disk filled up. '.repeat(3).trim(),
    quote: 'only pruned /var/cache/ci/old, so build artefacts filled /dev/sdb1',
  },
  {
    kind: 'lesson',
    pattern_key: 'rsync-delete',
    title: 'rsync --delete removes extraneous files',
    text: 'rsync --delete deletes extraneous files from the destination directories.',
    quote: '--delete                delete extraneous files from dest dirs',
  },
  {
    kind: 'lesson',
    pattern_key: 'cron-root-vs-user',
    title: "A job that misbehaves may run from root's crontab",
    text: "When a scheduled job does not do what the service user's crontab says, look at root's crontab too: the job may run from there.",
    quote: "# cleanup runs from root's crontab, not the ci user's",
  },
];

/** What each scripted proposal becomes: decision and the start of its reason (the known fact's id is filled in). */
export function expectedDecisions(knownId: string): Array<[string, string]> {
  return [
    ['kept', 'new host fact'],
    ['dropped', `known: ${knownId}`],
    ['dropped', 'quote not in the transcript'],
    ['dropped', 'secret ('],
    ['dropped', 'forbidden host or pattern'],
    ['dropped', 'over budget: host build-box'],
    ['dropped', 'obvious: only a help command printed it'],
    ['kept', 'new lesson'],
  ];
}
