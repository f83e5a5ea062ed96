/**
 * Contract: the prose of the file tools. Write gives the whole text of a text file, or the comments of a source
 * file (a notebook's markdown cells and code comments); Edit and MultiEdit the same of each new string, with lines
 * counted in the file when the old string is found in it; NotebookEdit the new cell's markdown or comments.
 */
import { classify, looksLikeCode, S_GENERIC, S_HASH, S_PY } from './file-kinds.js';
import { commentPieces, type CommentKind } from './comments.js';
import { displayPath, isRecord, resolveFrom, str, type ExtractContext } from './context.js';
import { addPiece, isFull, type PieceSink } from './pieces.js';

/** The prose of a Write call. */
export function writeProse(ctx: ExtractContext, input: Record<string, unknown>): void {
  const content = str(input.content);
  if (content === undefined) return;
  const path = str(input.file_path) ?? '';
  const shown = path ? displayPath(path, ctx.cwd) : 'file';
  if (/\.ipynb$/i.test(path) && notebookJsonProse(ctx.out, shown, content)) return;
  const kind = classify(path, content);
  if (kind === 'text') addPiece(ctx.out, shown, content, 1);
  else commentPieces(ctx.out, content, kind, (k, line) => `${k} in ${shown}:${line}`, 0);
}

function editLineBase(ctx: ExtractContext, path: string | undefined, old: unknown): number | undefined {
  if (!path || typeof old !== 'string' || old === '') return undefined;
  const text = ctx.read(resolveFrom(ctx.cwd, path));
  if (text === undefined) return undefined;
  const at = text.indexOf(old);
  if (at < 0) return undefined;
  let lines = 0;
  for (let k = text.indexOf('\n'); k >= 0 && k < at; k = text.indexOf('\n', k + 1)) lines++;
  return lines;
}

/** The prose of an Edit or MultiEdit call: each edit's new string. */
export function editProse(ctx: ExtractContext, path: string | undefined, edits: Array<{ old?: unknown; next?: unknown }>, multi: boolean): void {
  const shown = path ? displayPath(path, ctx.cwd) : 'file';
  edits.forEach((edit, k) => {
    const next = str(edit.next);
    if (next === undefined || isFull(ctx.out)) return;
    const tag = multi ? `edit ${k + 1}` : 'edit';
    const base = editLineBase(ctx, path, edit.old);
    const kind = classify(path ?? '', next);
    if (kind === 'text') {
      // NOTE: without the old text's place in the file, lines count from the start of the new text.
      addPiece(ctx.out, base === undefined ? `${shown} (${tag}, new text)` : `${shown} (${tag})`, next, (base ?? 0) + 1);
      return;
    }
    const label =
      base === undefined
        ? (c: CommentKind, line: number) => `${c} in ${shown} (${tag}, line ${line} of the new text)`
        : (c: CommentKind, line: number) => `${c} in ${shown}:${line} (${tag})`;
    commentPieces(ctx.out, next, kind, label, base ?? 0);
  });
}

/** The prose of a NotebookEdit call: the new cell. */
export function notebookEditProse(ctx: ExtractContext, input: Record<string, unknown>): void {
  const src = str(input.new_source);
  if (src === undefined || input.edit_mode === 'delete') return;
  const path = str(input.notebook_path) ?? '';
  const shown = path ? displayPath(path, ctx.cwd) : 'notebook';
  const type = input.cell_type === 'markdown' || input.cell_type === 'code' ? input.cell_type : looksLikeCode(src) ? 'code' : 'markdown';
  if (type === 'markdown') addPiece(ctx.out, `${shown} (markdown cell)`, src, 1);
  else commentPieces(ctx.out, src, S_PY, (k, line) => `${k} in ${shown} (code cell):${line}`, 0);
}

function notebookJsonProse(out: PieceSink, shown: string, content: string): boolean {
  let nb: unknown;
  try {
    nb = JSON.parse(content);
  } catch {
    return false;
  }
  if (!isRecord(nb) || !Array.isArray(nb.cells)) return false;
  const meta = isRecord(nb.metadata) ? nb.metadata : {};
  const lang = String((isRecord(meta.kernelspec) && meta.kernelspec.language) || (isRecord(meta.language_info) && meta.language_info.name) || 'python').toLowerCase();
  const syn = lang === 'python' ? S_PY : lang === 'r' || lang === 'julia' ? S_HASH : S_GENERIC;
  nb.cells.slice(0, 5_000).forEach((cell: unknown, k: number) => {
    if (!isRecord(cell) || isFull(out)) return;
    const src = Array.isArray(cell.source) ? cell.source.filter((s): s is string => typeof s === 'string').join('') : str(cell.source) ?? '';
    if (cell.cell_type === 'code') commentPieces(out, src, syn, (c, line) => `${c} in ${shown} (cell ${k + 1}):${line}`, 0);
    else addPiece(out, `${shown} (cell ${k + 1}, ${cell.cell_type === 'raw' ? 'raw' : 'markdown'})`, src, 1);
  });
  return true;
}
