import * as vscode from 'vscode';
import { RequestError } from '@agentclientprotocol/sdk';

/**
 * A file as the editor has it: the open buffer (unsaved changes included), else the disk.
 * undefined: no such file.
 */
export async function currentText(path: string): Promise<string | undefined> {
  const uri = vscode.Uri.file(path);
  const doc = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === uri.fsPath);
  if (doc) return doc.getText();
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
  } catch (err) {
    if (err instanceof vscode.FileSystemError && err.code === 'FileNotFound') return undefined;
    throw err;
  }
}

/** ACP's answer for a missing file: -32002 "Resource not found" with the file's URI. */
export function notFound(path: string): RequestError {
  return RequestError.resourceNotFound(vscode.Uri.file(path).toString());
}
