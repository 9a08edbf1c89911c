// How a held write is answered to the agent, and which tools' edits the diff review approves.

/** Tools whose edits reach the editor as one fs/write_text_file (apply_patch may also delete: it keeps its question). */
export const REVIEWED_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'multi_edit']);

/** JSON-RPC error codes of a write the person rejected, and of one withdrawn before they decided. */
export const WRITE_REJECTED = -32050;
export const WRITE_WITHDRAWN = -32051;

/** What the model reads when the person rejects its edit (the tool result says "cannot write PATH: …"). */
export function rejectedWriteMessage(reason: string | undefined): string {
  const base = 'the person reviewing it in the editor rejected this change, so the file is unchanged';
  return reason ? `${base}. Their reason: ${reason}` : `${base}. Ask them what they want instead of retrying the same change`;
}
