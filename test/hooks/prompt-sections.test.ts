/**
 * The keyword signal on a long page with sections (spec/hooks.md, "Keyword"): the page as a whole holds the
 * prompt's words too thinly for the focus bar, so it is read part by part. A prompt one section is about points
 * to the page, and so does one its opening and one section are about; a prompt whose words the page scatters over
 * its sections does not. Run through the exact command of hooks/hooks.json, with KB_HOOK_DEBUG saying why.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { makeSandbox, type Sandbox } from '../helpers/cli.js';
import { commitAll, contextOf, makeRepo, payload, pointerIds, runPromptHook, tid, writeEntries } from './prompt-support.js';

let sb: Sandbox;
beforeEach(() => {
  sb = makeSandbox('gkb-prompt-sections-');
});
afterEach(() => sb.cleanup());

const PAGE = [
  'How the platform team watches its services in production, what each signal is for, and who reads it.',
  '',
  '## Logging',
  'Every service writes structured JSON logs to stdout. Attach a correlation id from the incoming request header to',
  'every log line, so one request can be followed across services.',
  '',
  '## Metrics',
  'Counters and histograms are scraped by Prometheus every fifteen seconds. Keep label cardinality low: no user ids,',
  'no request paths with parameters, no timestamps as labels. Dashboards live in Grafana, one folder per team.',
  '',
  '## Tracing',
  'Spans are exported with the OpenTelemetry collector; sample one request in ten in staging and one in a hundred in',
  'production. Name spans after the operation, never after the URL, and record errors as span events.',
  '',
  '## Alerting',
  'Page only on symptoms users feel: error rate, latency at the 99th percentile, saturation of queues and disks.',
  'Every alert links to its runbook; an alert nobody acted on twice is deleted or demoted to a ticket.',
  '',
  '## Retention',
  'Logs are kept thirty days, metrics thirteen months downsampled, traces seven days. Budgets are reviewed quarterly',
  'with finance, and a noisy service pays for its own excess ingestion from its team budget.',
  '',
  '## On-call',
  'Two engineers share each weekly rotation, handing over on Monday mornings with a written summary of open incidents,',
  'flapping checks and anything deferred. Compensation follows the regional policy; swaps go through the scheduler.',
  '',
  '## Incident reviews',
  'Within five working days of a major outage the owning squad writes a blameless review: timeline, contributing',
  'factors, what went well, and follow-up actions with owners and due dates, tracked until closed.',
  '',
  '## Dashboards',
  'Each squad curates a landing board with golden signals, deployment markers, dependency health and capacity',
  'forecasts; ad-hoc exploration boards expire after ninety days unless somebody pins them.',
  '',
  '## Vendors',
  'We evaluated hosted offerings against self-managed clusters on price, data residency, query language ergonomics',
  'and support contracts; the comparison spreadsheet and the procurement decision are linked from the wiki.',
].join('\n');

describe('prompt hook on a page with sections', () => {
  it('points to the page for a prompt one section is about, not for one whose words it scatters', async () => {
    await makeRepo(sb, [
      { id: tid(1), title: 'Observability handbook', tags: ['operations'], body: PAGE },
      { id: tid(2), title: 'Rebase feature branches before merging', tags: ['git'], body: 'Rebase onto main, then merge with a fast-forward.' },
      { id: tid(3), title: 'Vitest snapshot tests', tags: ['testing'], body: 'Update snapshots with the -u flag after a deliberate change.' },
    ]);
    const debugFile = path.join(sb.root, 'debug.jsonl');
    const env = { KB_HOOK_DEBUG: '1', KB_HOOK_DEBUG_FILE: debugFile };
    // One section's words: the correlation id in structured JSON logs.
    const one = contextOf(await runPromptHook(sb, payload('how do we attach the correlation id to our json log lines in the payments service?'), { env }));
    expect(pointerIds(one)).toEqual([tid(1)]);
    // The same count of the page's words, one from each of four sections: no section is about the prompt.
    const scattered = contextOf(await runPromptHook(sb, payload('correlation cardinality spans runbook for the checkout rewrite in kotlin'), { env }));
    expect(pointerIds(scattered)).toEqual([]);
    // The debug log says why the second was quiet: the page missed the focus bar, and no section passed the bars.
    const log = fs.readFileSync(debugFile, 'utf8');
    expect(log).toMatch(/"miss":"focus"/);
    // What the page says it is about (its opening) and one section, with words of neither: the page as a whole misses
    // the focus bar and neither part alone covers the prompt; the opening read with the retention section does.
    const opening = contextOf(await runPromptHook(sb, payload('platform watch signal: thirteen months downsampled metrics for the checkout rewrite in kotlin', 'session-o'), { env }));
    expect(pointerIds(opening)).toEqual([tid(1)]);

    // A page added afterwards reaches the index as an update (its delta keeps the parts too), and its parts count.
    writeEntries(sb.data, [{ id: tid(4), title: 'Release handbook', tags: ['operations'], body: PAGE.replace('## Logging', '## Changelogs\nEach release note lists migrations and feature flags.\n\n## Logging') }]);
    await commitAll(sb, 'a second long page');
    const later = contextOf(await runPromptHook(sb, payload('which migrations and feature flags go in each release note of the changelogs?', 'session-b'), { env }));
    expect(pointerIds(later)).toEqual([tid(4)]);
    const records = fs.readFileSync(debugFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { index?: string });
    expect(records.at(-1)!.index).toMatch(/^updated /);
  });
});
