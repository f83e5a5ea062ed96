/**
 * Contract: the host signal of the prompt hook (spec/hooks.md, "Signals"; spec/hosts.md, "Detection"). A prompt
 * that names a known host by its key, an alias or a marker gets one pointer line to that host's facts. It runs
 * only the compiled matcher the index keeps (adapters/index/prompt/extras-hosts.ts: no forbidden host in it, and
 * none at all while hosts.yaml does not validate). Loads no YAML on the prompt path.
 */
import { matchHosts } from '../../../core/hosts/matcher.js';
import type { Pointer, PromptSignal } from '../signals.js';

/** How much of a prompt is searched for markers (a pasted log may name the host far down). */
export const HOST_SCAN_CHARS = 16_000;

/** The pointer of one host (a pseudo-id `host:<key>`, so the session ledger shows it once). */
export function hostPointer(key: string, facts: number): Pointer {
  return { id: `host:${key}`, title: `${facts} fact${facts === 1 ? '' : 's'} about host ${key}; \`git-kb host load ${key}\` prints them`, signal: 'host' };
}

export const hostSignal: PromptSignal = {
  name: 'host',
  limit: 3,
  fire(ctx) {
    const x = ctx.reader.header.extras?.host;
    if (!x?.matcher || x.matcher.labels.length === 0) return { pointers: [], ...(ctx.debug && x?.error ? { debug: { error: x.error } } : {}) };
    const raw = typeof ctx.input.prompt === 'string' ? ctx.input.prompt : ctx.prompt;
    const keys = matchHosts(x.matcher, raw.length > HOST_SCAN_CHARS ? raw.slice(0, HOST_SCAN_CHARS) : raw);
    const pointers = keys.map((k) => hostPointer(k, x.facts?.[x.matcher!.labels.indexOf(k)] ?? 0));
    return { pointers, ...(ctx.debug && keys.length ? { debug: { hosts: keys } } : {}) };
  },
};
