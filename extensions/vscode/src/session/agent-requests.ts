import type * as acp from '@agentclientprotocol/sdk';
import type * as vscode from 'vscode';
import type { PendingEdits } from '../edits/pending-edits.js';
import type { EditReview } from '../edits/review.js';
import { currentText, notFound } from '../edits/workspace-files.js';
import type { ChatModel, ToolCard } from '../model/chat-model.js';
import { decisionWord, permissionPrompt } from '../model/permission-prompt.js';
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
   * The agent's write is staged, not written: answered at once (the server will not wait long),
   * and shown as a diff to accept or reject.
   */
  async writeTextFile(p: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    const original = this.d.pending.get(p.path) ? null : ((await currentText(p.path)) ?? null);
    this.d.pending.stage(p.sessionId, p.path, p.content, original);
    this.d.model.setReview(p.path, 'pending');
    this.d.render();
    if (!this.d.replaying()) {
      void this.d.review.open(p.path).catch((err: unknown) => this.d.log.warn(`could not open the diff: ${err instanceof Error ? err.message : String(err)}`));
    }
    return {};
  }
}
