/**
 * Contract: what the index keeps for the prompt hook's host signal (spec/hooks.md, "Signals"; spec/hosts.md,
 * "Detection"), built at index time from hosts.yaml and the host facts, so that a prompt only runs the compiled
 * matcher and loads no YAML. Forbidden hosts are never in it, hosts without facts are left out, and a hosts.yaml
 * that does not validate gives no matcher at all (fail closed; the builder then indexes no host fact either).
 */
import { hostTerms, type HostRegistry } from '../../../core/hosts/hosts.js';
import { compileMatcher, type HostMatcher } from '../../../core/hosts/matcher.js';

/** The host signal's part of the index. */
export interface HostExtras {
  v: 1;
  matcher?: HostMatcher;
  /** Fact counts, aligned with matcher.labels. */
  facts?: number[];
  /** Why there is no matcher (for the debug log). */
  error?: string;
}

/** The host extras of a registry; without one (hosts.yaml did not validate), no matcher and the reason. */
export function hostExtras(build: { registry?: HostRegistry; error?: string; entries: { type: string; host?: string }[] }): HostExtras {
  if (!build.registry) return { v: 1, error: build.error ?? 'hosts.yaml did not load' };
  const counts = new Map<string, number>();
  for (const e of build.entries) if (e.type === 'host_fact' && e.host) counts.set(e.host, (counts.get(e.host) ?? 0) + 1);
  const hosts = build.registry.hosts.filter((h) => !h.forbidden && (counts.get(h.key) ?? 0) > 0);
  return { v: 1, matcher: compileMatcher(hosts.map((h) => ({ label: h.key, terms: hostTerms(h) }))), facts: hosts.map((h) => counts.get(h.key)!) };
}
