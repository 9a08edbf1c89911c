// A CI bot written against ONLY the typed client (@ferret/client): it opens a session, sends a
// message with ?wait=false, follows the typed frames, answers the permission requests its policy
// covers, notes the ones another client answered, can cancel a long turn, and reads errors by
// their typed codes. `npm run typecheck` compiles it against the generated types.
import {
  FerretHttpError,
  type Decision,
  type ErrorCode,
  type FerretApiClient,
  type NewSession,
  type PermissionRequest,
  type PermissionResolved,
  type SseFrame,
  type TurnResult,
} from '../../clients/typescript/src/index.mjs';

/** What the bot decides for a permission request; undefined leaves it to someone else. */
export type PermissionPolicy = (req: PermissionRequest) => Decision | undefined;

export interface TurnOptions {
  /** Called for every frame; return 'cancel' to cancel the turn there. */
  onFrame?: (frame: SseFrame) => 'cancel' | undefined | Promise<'cancel' | undefined>;
  /** Give up after this long (default 20 s). */
  timeoutMs?: number;
}

export interface TurnReport {
  turnId: string;
  result: TurnResult;
  frames: SseFrame[];
  /** One line a frame, e.g. `loop_event:tool_call_start`, `progress/step:tool_call`, `result:end_turn`. */
  shape: string[];
  /** Requests the bot answered itself. */
  answered: { id: string; decision: Decision; tool: string }[];
  /** Requests it left, and how another client resolved them. */
  resolvedElsewhere: PermissionResolved[];
  /** Answers that lost the race to another client (409 already_decided). */
  lostRaces: string[];
  cancelled: boolean;
}

/** The one-line shape of a frame: the switch covers every event the document declares. */
export function describeFrame(f: SseFrame): string {
  switch (f.event) {
    case 'loop_event':
      return `loop_event:${f.data.kind}`;
    case 'result':
      return `result:${f.data.stopReason}`;
    case 'progress/step':
      return `progress/step:${f.data.phase}`;
    case 'code/diff':
      return `code/diff:${f.data.changeKind}`;
    case 'terminal/output':
      return `terminal/output:${f.data.stream}`;
    case 'editor/open_file':
      return `editor/open_file:${f.data.line ?? ''}`;
  }
}

/** The error code a call failed with, or 'ok' when it succeeded. */
export async function codeOf(call: Promise<unknown>): Promise<ErrorCode | 'ok'> {
  try {
    await call;
    return 'ok';
  } catch (e) {
    if (e instanceof FerretHttpError) return e.code;
    throw e;
  }
}

export class Bot {
  constructor(
    readonly api: FerretApiClient,
    readonly policy: PermissionPolicy = () => undefined,
  ) {}

  /** Creates a session: no body at all unless options are given. */
  async open(opts?: NewSession): Promise<string> {
    const s = await this.api.createSession(opts);
    return s.sessionId;
  }

  /** Sends `text` with ?wait=false and follows the stream until this turn's result frame. */
  async turn(sessionId: string, text: string, opts: TurnOptions = {}): Promise<TurnReport> {
    const stream = this.api.events(sessionId, { retryMs: 100 });
    const timer = setTimeout(() => stream.close(), opts.timeoutMs ?? 20_000);
    const report: Omit<TurnReport, 'turnId' | 'result'> & { turnId?: string; result?: TurnResult } = {
      frames: [],
      shape: [],
      answered: [],
      resolvedElsewhere: [],
      lostRaces: [],
      cancelled: false,
    };
    const mine = new Set<string>();
    try {
      await stream.opened; // live before the message goes, so no frame of the turn is missed
      const { turnId } = await this.api.sendMessage(sessionId, text, { wait: false });
      report.turnId = turnId;
      for await (const f of stream) {
        report.frames.push(f);
        report.shape.push(describeFrame(f));
        if (f.event === 'loop_event') {
          const u = f.data;
          if (u.kind === 'permission_request') {
            const decision = this.policy(u);
            if (decision) {
              mine.add(u.id);
              try {
                await this.api.answerPermission(sessionId, u.id, decision);
                report.answered.push({ id: u.id, decision, tool: u.tool });
              } catch (e) {
                if (!(e instanceof FerretHttpError && e.code === 'already_decided')) throw e;
                report.lostRaces.push(u.id);
              }
            }
          } else if (u.kind === 'permission_resolved' && !mine.has(u.id)) report.resolvedElsewhere.push(u);
        }
        if ((await opts.onFrame?.(f)) === 'cancel' && !report.cancelled) {
          report.cancelled = true;
          await this.api.cancelTurn(sessionId);
        }
        if (f.event === 'result' && f.data.turnId === turnId) {
          report.result = f.data;
          break;
        }
      }
    } finally {
      clearTimeout(timer);
      stream.close();
    }
    if (!report.turnId || !report.result) throw new Error(`turn on ${sessionId} did not end in time; saw ${report.shape.join(' ')}`);
    return { ...report, turnId: report.turnId, result: report.result };
  }
}
