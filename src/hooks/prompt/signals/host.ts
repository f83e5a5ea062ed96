/**
 * Contract: the host signal of the prompt hook (spec/hooks.md, "Signals"; spec/hosts.md, "Detection"). A prompt
 * that names a known host by its key, an alias or a marker gets one pointer line to that host's facts. Built at
 * index time from hosts.yaml and the host facts (`collect`), so a prompt only runs the compiled matcher kept in
 * the index: forbidden hosts are never in it, hosts without facts are left out, and a hosts.yaml that does not
 * validate gives no host pointers at all (fail closed). Loads no YAML on the prompt path.
 */
import { compileMatcher, matchHosts, type HostMatcher } from '../../../core/hosts/matcher.js';
import type { Pointer, PromptSignal } from '../signals.js';

/** How much of a prompt is searched for markers (a pasted log may name the host far down). */
export const HOST_SCAN_CHARS = 16_000;

/** What the index keeps for this signal. */
export interface HostExtras {
  v: 1;
  matcher?: HostMatcher;
  /** Fact counts, aligned with matcher.labels. */
  facts?: number[];
  /** Why there is no matcher (for the debug log). */
  error?: string;
}

/** Builds the signal's index data from hosts.yaml and the entries. */
export async function collectHosts(build: { dir: string; entries: { type: string; host?: string }[] }): Promise<HostExtras> {
  const { hostTerms, loadHosts } = await import('../../../core/hosts/hosts.js');
  let registry;
  try {
    registry = await loadHosts(build.dir);
  } catch (err) {
    return { v: 1, error: String((err as Error).message).split('\n')[0] };
  }
  const counts = new Map<string, number>();
  for (const e of build.entries) if (e.type === 'host_fact' && e.host) counts.set(e.host, (counts.get(e.host) ?? 0) + 1);
  const hosts = registry.hosts.filter((h) => !h.forbidden && (counts.get(h.key) ?? 0) > 0);
  return { v: 1, matcher: compileMatcher(hosts.map((h) => ({ label: h.key, terms: hostTerms(h) }))), facts: hosts.map((h) => counts.get(h.key)!) };
}

/** The pointer of one host (a pseudo-id `host:<key>`, so the session ledger shows it once). */
export function hostPointer(key: string, facts: number): Pointer {
  return { id: `host:${key}`, title: `${facts} fact${facts === 1 ? '' : 's'} about host ${key}; \`git-kb host load ${key}\` prints them`, signal: 'host' };
}

export const hostSignal: PromptSignal = {
  name: 'host',
  limit: 3,
  collect: collectHosts,
  fire(ctx) {
    const x = ctx.reader.header.extras?.host as HostExtras | undefined;
    if (!x?.matcher || x.matcher.labels.length === 0) return { pointers: [], ...(ctx.debug && x?.error ? { debug: { error: x.error } } : {}) };
    const raw = typeof ctx.input.prompt === 'string' ? ctx.input.prompt : ctx.prompt;
    const keys = matchHosts(x.matcher, raw.length > HOST_SCAN_CHARS ? raw.slice(0, HOST_SCAN_CHARS) : raw);
    const pointers = keys.map((k) => hostPointer(k, x.facts?.[x.matcher!.labels.indexOf(k)] ?? 0));
    return { pointers, ...(ctx.debug && keys.length ? { debug: { hosts: keys } } : {}) };
  },
};
