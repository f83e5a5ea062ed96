/** Datadog API keys (32 hex) and application keys (40 hex), named by their key: `DD_API_KEY`, `datadog_app_key`, `datadog:`. */
import { fill, HEX, keyedRe, type TokenRule } from './rule.js';

export const datadogRules: TokenRule[] = [
  {
    kind: 'Datadog key',
    re: keyedRe('datadog|dd_', '[a-f0-9]{40}|[a-f0-9]{32}'),
    value: 1,
    keywords: ['datadog', 'dd_'],
    samples: [fill(32, HEX), fill(40, HEX)],
    context: (s) => (s.length === 32 ? `DD_API_KEY=${s}` : `datadog:\n  app_key: x\n  datadog_app_key: "${s}"`),
    nearMisses: [`DD_TRACE_ID=${fill(30, HEX)}`, `commit ${fill(40, HEX)} (datadog dashboard)`],
  },
];
