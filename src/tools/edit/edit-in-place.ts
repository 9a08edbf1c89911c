// The steps edit_file and multi_edit share: read the file through the turn's seam, refuse it when
// it changed since the agent last saw it, apply the replacements all or nothing, write once,
// remember what was written, and report one diff.
import { resolve } from 'node:path';
import { fail, ok, type PreviewContext, type ProposedEdit, type ToolContext, type ToolOutcome } from '../define.js';
import { unifiedDiff } from '../diff-text.js';
import { MAX_EDIT_CHARS } from '../node-files.js';
import { forgivenNote, replaceAll, staleRefusal, type Replaced, type Replacement } from './replace.js';

export async function editInPlace(
  tool: string,
  path: string,
  edits: readonly Replacement[],
  ctx: ToolContext,
  words: { label: (i: number) => string; failed?: (r: Extract<Replaced, { ok: false }>) => string; done: (r: Extract<Replaced, { ok: true }>) => string },
): Promise<ToolOutcome> {
  const abs = resolve(ctx.cwd, path);
  let before: string;
  try {
    before = await ctx.files.readText(abs, ctx.signal);
  } catch (e) {
    return fail(`cannot read ${path}: ${(e as Error).message}`);
  }
  if (ctx.ledger?.stale(abs, before)) return fail(`${tool}: ${staleRefusal(path)}`);
  if (before.length > MAX_EDIT_CHARS || edits.some((e) => e.new.length > MAX_EDIT_CHARS)) {
    return fail(`${tool}: ${path} or the new text is larger than ${tool} handles (${MAX_EDIT_CHARS} characters); use bash (sed, a script)`);
  }
  const r = replaceAll(before, edits, words.label);
  if (!r.ok) return fail(words.failed ? words.failed(r) : r.error);
  if (r.after.length > MAX_EDIT_CHARS) return fail(`${tool}: the result would be larger than ${tool} handles (${MAX_EDIT_CHARS} characters); use bash`);
  try {
    await ctx.files.writeText(abs, r.after, ctx.signal);
  } catch (e) {
    return fail(`cannot write ${path}: ${(e as Error).message}`);
  }
  ctx.ledger?.saw(abs, r.after);
  const diff = await unifiedDiff(abs, before, r.after);
  ctx.fileEdit({ path: abs, diff, changeKind: 'modify', oldText: before, newText: r.after });
  return ok(`${words.done(r)}${forgivenNote(r.forgiven)}\n${diff}`);
}

/** The text `edits` would leave in the file, for the permission card; undefined when they would fail. */
export async function previewInPlace(path: string, edits: readonly Replacement[], ctx: PreviewContext): Promise<ProposedEdit | undefined> {
  const abs = resolve(ctx.cwd, path);
  try {
    const before = await ctx.files.readText(abs, ctx.signal);
    if (before.length > MAX_EDIT_CHARS) return undefined;
    const r = replaceAll(before, edits, (i) => `edit ${i + 1}`);
    return r.ok ? { path: abs, oldText: before, newText: r.after } : undefined;
  } catch {
    return undefined;
  }
}
