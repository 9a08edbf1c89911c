// Facts that change during a session reach the model as context messages, never as edits of the
// system prompt (which stays the same bytes, so the provider's prompt cache keeps hitting):
// instruction files of folders the agent's tools touched, and a new approval preset or sandbox
// mode. A note is a `message` event (role user, marked as ferret's): it is in the log, so a
// replay or a resume gives the model the same conversation, and clients do not show it (they show
// the user's words from turn_start). What was already said is read back from the history itself:
// after a compaction summarised a note away, it is sent again.
import type { ApprovalPreset, Message, SandboxMode } from '../../protocol/index.js';
import { approvalLine, sandboxLines } from './environment.js';
import { agentsDirs, fitted, MAX_TOTAL_CHARS, type InstructionFile, type InstructionReader } from './instructions.js';

/** The first line of every context message: the model is told who wrote it. */
export const CONTEXT_PREFIX = '[ferret context: written by ferret, not by the person]\n';

export function isContextNote(m: Message): boolean {
  return m.role === 'user' && m.text.startsWith(CONTEXT_PREFIX);
}

/** The line a file's note starts with: also how a later call knows the file was already sent. */
function instructionHead(f: InstructionFile): string {
  const folder = f.label.slice(0, f.label.lastIndexOf('/') + 1);
  return `Instructions from ${f.label} (for work in ${folder}; nearer files win where they disagree):`;
}

export interface NoteInput {
  history: readonly Message[];
  cwd: string;
  touched: Iterable<string>;
  approval: ApprovalPreset;
  sandbox: SandboxMode;
  /** What the system prompt said. */
  stated: { approval: ApprovalPreset; sandbox: SandboxMode };
  /** Characters of instructions the system prompt carries. */
  instructionChars: number;
  reader: InstructionReader;
}

/** The text of the context message to add before the next model call, or undefined when nothing changed. */
export function pendingNote(n: NoteInput): string | undefined {
  const said: string[] = [];
  for (const m of n.history) if (isContextNote(m)) said.push((m as { text: string }).text);
  const items: string[] = [];
  // Instructions below the workspace that are not in the conversation now (the workspace's own is in the system prompt).
  let used = n.instructionChars + said.reduce((sum, t) => sum + t.length, 0);
  for (const dir of agentsDirs(n.cwd, n.touched).slice(1)) {
    const f = n.reader.inFolder(dir);
    if (!f) continue;
    const head = instructionHead(f);
    if (said.some((t) => t.includes(`\n${head}\n`))) continue;
    const { text, used: u } = fitted(f, MAX_TOTAL_CHARS - used);
    used += u;
    items.push(`${head}\n${text}`);
  }
  // The latest statement wins: a note after the system prompt, else the system prompt itself.
  const last = (re: RegExp, fallback: string) => said.reduce((cur, t) => re.exec(t)?.[1] ?? cur, fallback);
  if (last(/^Approval preset: (\S+)/m, n.stated.approval) !== n.approval) items.push(`The approval preset changed.\n${approvalLine(n.approval)}`);
  if (last(/^Sandbox: (\S+)/m, n.stated.sandbox) !== n.sandbox) items.push(`The sandbox changed.\n${sandboxLines(n.sandbox)}`);
  return items.length ? CONTEXT_PREFIX + items.join('\n\n') : undefined;
}
