import * as vscode from 'vscode';
import type { PendingEdits } from '../edits/pending-edits.js';
import { PROPOSED_SCHEME } from '../edits/review.js';

/** ferret's `file_open`: reveal the file at the line (1-based), without taking focus from the chat. */
export async function reveal(path: string, line: number | undefined, pending: PendingEdits): Promise<void> {
  // A file that exists only as a pending edit is shown as proposed.
  let uri = vscode.Uri.file(path);
  if (pending.get(path)?.original === null) uri = uri.with({ scheme: PROPOSED_SCHEME });
  const at = Math.max(0, (line ?? 1) - 1);
  const editor = await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true, selection: new vscode.Range(at, 0, at, 0) });
  editor.revealRange(new vscode.Range(at, 0, at, 0), vscode.TextEditorRevealType.InCenterIfOutsideViewport);
}
