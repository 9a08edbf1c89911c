import * as acp from '@agentclientprotocol/sdk';
import type * as vscode from 'vscode';
import type { PendingEdits } from '../edits/pending-edits.js';
import type { EditReview } from '../edits/review.js';
import { currentText, notFound } from '../edits/workspace-files.js';
import type { ChatModel, ToolCard } from '../model/chat-model.js';
import { ferretMeta, type FerretPermissionMeta } from '../model/ferret-meta.js';
import { decisionWord, permissionPrompt } from '../model/permission-prompt.js';
import { rejectedWriteMessage, REVIEWED_TOOLS, WRITE_REJECTED, WRITE_WITHDRAWN } from '../model/review-words.js';
import { sliceLines } from '../model/text-range.js';
import { pickPermission } from '../ui/permission-picker.js';

export interface AgentRequestDeps {
  model: ChatModel;
  pending: PendingEdits;
  review: EditReview;
  log: vscode.LogOutputChannel;
  render: () => void;
  /** History is being replayed: show, do not act (no diff opened). */
  replaying: () => boolean;
  /** Writes go to disk without a review (the chimera.autoAcceptEdits setting, or "accept all" for this turn or session). */
  autoAccept: () => boolean;
  /** The window is closing: an aborted write stays pending (offered again after a reload), not withdrawn. */
  closing: () => boolean;
}

/**
 * What the agent asks of the editor (ACP v1's client requests): permission, reading a file as the
 * person sees it, writing a file as a pending edit.
 */
export class AgentRequests {
  /** The permission questions, asked one after another. */
  private questions: Promise<unknown> = Promise.resolve();

  constructor(private readonly d: AgentRequestDeps) {}

  /**
   * One question at a time: a second quick pick would replace (hide) the first, and a hidden one
   * counts as a deny. Questions withdrawn while they wait are answered `cancelled` at their turn.
   */
  permission(req: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const answer = this.questions.then(() => this.ask(req, signal));
    this.questions = answer.catch(() => undefined);
    return answer;
  }

  private async ask(req: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const id = req.toolCall.toolCallId;
    const card = await this.cardOf(id);
    // One approval per edit: a file edit that will be held for review is allowed here, and the
    // diff (Accept/Reject) is the question. With auto-accept on, the quick pick stays the approval.
    const tool = ferretMeta<FerretPermissionMeta>(req._meta)?.tool ?? card?.name;
    const allow = req.options.find((o) => o.kind === 'allow_once');
    if (tool && REVIEWED_TOOLS.has(tool) && allow && !this.d.autoAccept()) {
      this.decided(id, 'review the diff');
      return { outcome: { outcome: 'selected', optionId: allow.optionId } };
    }
    const answer = await pickPermission(permissionPrompt(req, card?.title), signal);
    if (answer === 'withdrawn') {
      this.decided(id, decisionWord('cancelled'));
      return { outcome: { outcome: 'cancelled' } };
    }
    // Escape is no consent: answered as a plain deny.
    const chosen = answer === 'dismissed' ? req.options.find((o) => o.kind === 'reject_once') : req.options.find((o) => o.optionId === answer.optionId);
    if (!chosen) return { outcome: { outcome: 'cancelled' } };
    this.decided(id, decisionWord(chosen.kind));
    return { outcome: { outcome: 'selected', optionId: chosen.optionId } };
  }

  private decided(toolCallId: string, word: string): void {
    this.d.model.recordDecision(toolCallId, word);
    this.d.render();
  }

  /**
   * The card a request is about. The SDK may hand us a request before the notifications sent
   * just ahead of it have been applied, so wait a moment for the card (its title names the call).
   */
  private async cardOf(toolCallId: string): Promise<ToolCard | undefined> {
    for (let i = 0; i < 20; i++) {
      const c = this.d.model.card(toolCallId);
      if (c) return c;
      await new Promise((r) => setTimeout(r, 10));
    }
    return undefined;
  }

  /** The agent reads what the person sees: its own pending edit, else the open buffer, else the disk. */
  async readTextFile(p: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const staged = this.d.pending.get(p.path);
    const text = staged ? staged.proposed : await currentText(p.path);
    if (text === undefined) throw notFound(p.path);
    return { content: sliceLines(text, p.line, p.limit) };
  }

  /**
   * The agent's write is staged and shown as a diff; the request is answered with the person's
   * decision (ferret waits: we advertise `reviewsWrites`), so the turn's next step sees the file as
   * the person left it. Accept answers {}; Reject an error saying so (and why); Stop withdraws it.
   */
  async writeTextFile(p: acp.WriteTextFileRequest, signal?: AbortSignal): Promise<acp.WriteTextFileResponse> {
    const original = this.d.pending.get(p.path) ? null : ((await currentText(p.path)) ?? null);
    this.d.pending.stage(p.sessionId, p.path, p.content, original);
    const decided = this.d.pending.decision(p.path);
    this.d.model.setReview(p.path, 'pending');
    this.d.render();
    const warn = (err: unknown) => this.d.log.warn(`could not show the edit of ${p.path}: ${err instanceof Error ? err.message : String(err)}`);
    if (this.d.autoAccept()) void this.d.review.accept(p.path).catch(warn);
    else if (!this.d.replaying()) void this.d.review.open(p.path).catch(warn);
    const onAbort = () => {
      if (!this.d.closing()) void this.d.review.withdraw(p.path).catch(warn);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const d = await decided;
      if (d.kind === 'accepted') return {};
      if (d.kind === 'withdrawn') throw new acp.RequestError(WRITE_WITHDRAWN, 'the edit was withdrawn before the person decided; the file is unchanged');
      throw new acp.RequestError(WRITE_REJECTED, rejectedWriteMessage(d.reason), { rejected: true, ...(d.reason ? { reason: d.reason } : {}) });
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }
}
