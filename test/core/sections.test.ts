/**
 * core/format/sections.ts: a body cut at its markdown headings, for the prompt hook's reading of a long page part
 * by part. A heading inside code is text; "#tag" is no heading.
 */
import { describe, expect, it } from 'vitest';
import { hasSections, sections } from '../../src/core/format/sections.js';

describe('sections', () => {
  it('cuts at the top-level headings: the text before the first, then each with what follows it, subsections inside', () => {
    const body = 'Intro line.\n\n## Logging\nStructured logs.\n\n### Levels ###\nWarn and error.\n## Tracing ##\nSpans.\n';
    expect(sections(body)).toEqual([
      { heading: '', text: 'Intro line.\n' },
      { heading: 'Logging', text: 'Structured logs.\n\n### Levels ###\nWarn and error.' },
      { heading: 'Tracing', text: 'Spans.\n' },
    ]);
    expect(hasSections(body)).toBe(true);
    // The level cut at is the shallowest that occurs twice: one `#` heading over `##` sections is a part of its own
    // only when no level repeats.
    const one = '# Guide\nWhy.\n## Setup\nInstall.\n## Use\nRun.\n';
    expect(sections(one).map((x) => x.heading)).toEqual(['Guide', 'Setup', 'Use']);
    const single = 'Lead.\n### Only subsection\nText.\n';
    expect(sections(single).map((x) => x.heading)).toEqual(['', 'Only subsection']);
  });

  it('reads a heading inside fenced or inline code, a #tag and a #! line as text', () => {
    const body = 'Run it:\n\n```sh\n# not a heading\nmake\n```\n\n#tag and `# code`\n#!/bin/sh\n';
    expect(sections(body)).toEqual([{ heading: '', text: body }]);
    expect(hasSections(body)).toBe(false);
  });

  it('leaves out an empty lead, keeps a heading with nothing under it, and has no section in an empty body', () => {
    expect(sections('\n\n## Only\n')).toEqual([{ heading: 'Only', text: '' }]);
    expect(hasSections('## One\ntext')).toBe(false);
    expect(hasSections('## One\ntext\n## Two\nmore')).toBe(true);
    expect(sections('  \n')).toEqual([]);
    expect(sections('plain text, no heading')).toEqual([{ heading: '', text: 'plain text, no heading' }]);
  });
});
