/**
 * Contract: where the files of the build are. Code bundled into dist/ (any chunk, or the hook entry) finds the
 * build's other stable files from its own location; from the sources (tests, tsc) there is no build.
 */
import { fileURLToPath } from 'node:url';

/** The path of `rel` in the build (dist/…) when this code runs from it; undefined from the sources. */
export function builtFile(rel: string): string | undefined {
  const here = import.meta.url;
  const at = here.lastIndexOf('/dist/');
  return at === -1 ? undefined : fileURLToPath(`${here.slice(0, at)}/dist/${rel}`);
}
