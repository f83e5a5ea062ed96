/**
 * Every field a write takes as input is judged as the user typed it (src/core/secrets/guard.ts,
 * refuseSecretInputs): each provider-shaped secret of the battery, given alone in each field of each use case, is
 * refused with SECRET_DETECTED naming the field, before any split, lower-casing or slugging, and before the repo
 * is touched (the data repo here does not exist). The message never holds the secret. Through the real CLI, with
 * the git objects checked, see test/cli/secrets-fields.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { readSettings } from '../../src/adapters/config/settings.js';
import { addEntry } from '../../src/app/add.js';
import { editEntry } from '../../src/app/edit.js';
import { addHostFact, forbidPattern, registerHost } from '../../src/app/host.js';
import { KbError } from '../../src/core/errors.js';
import { findSecrets } from '../../src/core/secrets/scan.js';
import { shapedAlone } from '../fixtures/secrets.js';

const settings = readSettings({});
const data = '/nonexistent/git-kb-secret-inputs';
const base = { settings, data };

const SHAPES = shapedAlone((s) => findSecrets(s).length > 0);

const FIELDS: [string, string, (s: string) => Promise<unknown>][] = [
  ['add --title', 'the title', (s) => addEntry({ ...base, type: 'factual_reference', title: s })],
  ['add --tags', 'the tags', (s) => addEntry({ ...base, type: 'factual_reference', title: 't', tags: `ops,${s}` })],
  ['add --aliases', 'the aliases', (s) => addEntry({ ...base, type: 'factual_reference', title: 't', aliases: [s] })],
  ['add --url', 'the url', (s) => addEntry({ ...base, type: 'bookmark', title: 't', url: s })],
  ['add --pattern-key', 'the pattern key', (s) => addEntry({ ...base, type: 'lesson_learned', title: 't', patternKey: s })],
  ['add --host', 'the host', (s) => addEntry({ ...base, type: 'host_fact', title: 't', host: s })],
  ['edit --tags', 'the tags', (s) => editEntry({ ...base, id: 'kb-0001', tags: s })],
  ['edit --add-tag', 'the added tags', (s) => editEntry({ ...base, id: 'kb-0001', addTags: [s] })],
  ['edit --aliases', 'the aliases', (s) => editEntry({ ...base, id: 'kb-0001', aliases: s })],
  ['edit --url', 'the url', (s) => editEntry({ ...base, id: 'kb-0001', url: s })],
  ['host register KEY', 'the host key', (s) => registerHost({ ...base, key: s })],
  ['host register --marker', 'a marker', (s) => registerHost({ ...base, key: 'web1', markers: [s] })],
  ['host register --alias', 'an alias', (s) => registerHost({ ...base, key: 'web1', aliases: [s] })],
  ['host forbid', 'the forbidden pattern', (s) => forbidPattern({ ...base, pattern: s })],
  ['host add --tags', 'the tags', (s) => addHostFact({ ...base, key: 'web1', fact: 'a fact', tags: s })],
];

describe('every input field is scanned as typed', () => {
  it('has the provider shapes of issue 30 to try', () => {
    expect(SHAPES.length).toBeGreaterThanOrEqual(60);
  });

  it.each(FIELDS)('%s refuses every provider shape, naming %s, never echoing it', async (_label, field, write) => {
    const missed: string[] = [];
    for (const { kind, secret } of SHAPES) {
      const err = await write(secret).then(() => undefined, (e: unknown) => e);
      if (!(err instanceof KbError) || err.code !== 'SECRET_DETECTED') {
        missed.push(`${kind}: ${err instanceof KbError ? err.code : err instanceof Error ? err.message : 'written'}`);
        continue;
      }
      expect(err.message).toContain(`in ${field}`);
      expect(err.message).toContain('placeholder'); // the way through, for an example that only looks like a secret
      expect(err.message.toLowerCase()).not.toContain(secret.toLowerCase());
      expect(err.message.toLowerCase()).not.toContain(secret.slice(-12).toLowerCase());
    }
    expect(missed).toEqual([]);
  });
});
