// How an accepted edit becomes a WorkspaceEdit, without VS Code types: a new file is created with
// the text; an existing one has its whole content replaced (whole-file texts are what ACP sends).

export interface Position {
  line: number;
  character: number;
}

export type EditPlan =
  | { kind: 'create'; path: string; text: string }
  | { kind: 'replace'; path: string; text: string; range: { start: Position; end: Position } }
  | { kind: 'none'; path: string };

/** The end of `text` as VS Code counts it (lines split at \r\n, \r or \n). */
export function endOf(text: string): Position {
  const lines = text.split(/\r\n|\r|\n/);
  return { line: lines.length - 1, character: lines.at(-1)!.length };
}

/** `current`: the file as it is now (open buffer or disk), or undefined when it does not exist. */
export function editPlan(path: string, proposed: string, current: string | undefined): EditPlan {
  if (current === undefined) return { kind: 'create', path, text: proposed };
  if (current === proposed) return { kind: 'none', path };
  return { kind: 'replace', path, text: proposed, range: { start: { line: 0, character: 0 }, end: endOf(current) } };
}
