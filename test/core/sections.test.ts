/**
 * core/format/sections.ts: a body cut at its markdown headings, for the prompt hook's reading of a long page part
 * by part. A heading inside code is text; "#tag" is no heading.
 */
import { describe, expect, it } from 'vitest';
import { MAX_PARTS, pageParts, sections } from '../../src/core/format/sections.js';
import { keywords } from '../../src/core/text/prompt-text.js';

const hasSections = (body: string): boolean => pageParts('Title', body, keywords) !== undefined;

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

  it('gives the parts of a page as the prompt index keeps them: keyword counts with the title, and a mask per keyword', () => {
    const parts = pageParts('Observability handbook', 'Why we watch.\n## Logging\nStructured logs.\n## Metrics\nPrometheus counters.\n', keywords)!;
    // Three parts (the lead, Logging, Metrics), each with the title's two keywords.
    expect(parts.sizes).toEqual([2 + 1, 2 + 2, 2 + 3]); // lead: watch; Logging: log, structure; Metrics: metric, prometheus, counter
    expect(parts.masks.get('observability')).toBe(0b111);
    expect(parts.masks.get('structure')).toBe(0b010);
    expect(parts.masks.get('prometheus')).toBe(0b100);
    expect(pageParts('T', 'one section only', keywords)).toBeUndefined();
    // Past MAX_PARTS sections, the rest joins the last part.
    const many = Array.from({ length: MAX_PARTS + 3 }, (_, i) => `## Part ${i}\nword${i}x`).join('\n');
    const big = pageParts('T', many, keywords)!;
    expect(big.sizes).toHaveLength(MAX_PARTS);
    expect(big.masks.get(`word${MAX_PARTS + 2}x`)).toBe(1 << (MAX_PARTS - 1));
  });
});
