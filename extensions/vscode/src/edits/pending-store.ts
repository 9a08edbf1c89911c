import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as vscode from 'vscode';
import type { PendingEdit } from './pending-edits.js';

/**
 * Pending edits kept across a window reload: a JSON file in the extension's storage folder for
 * this workspace, written synchronously on every change. (The workspace Memento is flushed later,
 * so a reload right after an edit arrived could lose it.) No folder: nothing is kept.
 */
export class PendingStore {
  private readonly file: string | undefined;

  constructor(ctx: vscode.ExtensionContext) {
    this.file = ctx.storageUri?.scheme === 'file' ? join(ctx.storageUri.fsPath, 'pending-edits.json') : undefined;
  }

  save(edits: PendingEdit[]): void {
    if (!this.file) return;
    try {
      if (edits.length === 0) return rmSync(this.file, { force: true });
      mkdirSync(join(this.file, '..'), { recursive: true });
      // Written whole, then renamed: a reload mid-write leaves the old list, never half of one.
      writeFileSync(`${this.file}.tmp`, JSON.stringify(edits));
      renameSync(`${this.file}.tmp`, this.file);
    } catch {
      // Keeping edits across a reload is a convenience; the edits themselves stay in memory.
    }
  }

  load(): PendingEdit[] {
    if (!this.file) return [];
    try {
      const list = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      return Array.isArray(list) ? list.filter(isEdit) : [];
    } catch {
      return [];
    }
  }
}

function isEdit(x: unknown): x is PendingEdit {
  const e = x as PendingEdit;
  return typeof e?.path === 'string' && typeof e.proposed === 'string' && (e.original === null || typeof e.original === 'string') && typeof e.sessionId === 'string';
}
