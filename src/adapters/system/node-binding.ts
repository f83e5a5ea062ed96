/**
 * Contract: Node's own internal bindings (`process.binding(name)`), the one place they are reached. Used only
 * where a public API costs a hot path measurably (bench/RESULTS.md) and always behind a fallback to the public
 * API: the stat sweep (store/layout.ts) and a hook's stdin on a socket (hooks/protocol.ts). `process.binding` is
 * deprecated (DEP0111, documentation-only on Node 20 to 24: a warning, or a throw, only under
 * `--pending-deprecation`, which a user's NODE_OPTIONS may carry); that warning is silenced for this one call, as a
 * hook must print nothing it did not mean to. Undefined when Node has no such binding or refuses it. Proved on
 * Node 20 and 24 by test/node-internals.test.ts, which CI runs on both.
 */

/** `process.binding(name)` without its deprecation warning, or undefined when there is none or it throws. */
export function nodeBinding<T>(name: string): T | undefined {
  const p = process as unknown as { binding?: (name: string) => unknown };
  if (typeof p.binding !== 'function') return undefined;
  const quiet = process.noDeprecation;
  try {
    process.noDeprecation = true;
    return (p.binding(name) ?? undefined) as T | undefined;
  } catch {
    return undefined;
  } finally {
    process.noDeprecation = quiet;
  }
}
