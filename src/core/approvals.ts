import { FerretError } from '../protocol/index.js';
import type { Decision } from '../protocol/index.js';

interface Pending {
  resolve: (d: { decision: Decision; by: string }) => void;
}

/**
 * Pending permission requests of one session: a promise any attached client can settle.
 * The first decision wins; later ones are told it was already decided.
 */
export class PendingPermissions {
  private readonly pending = new Map<string, Pending>();
  private readonly decided = new Map<string, Decision>();

  wait(requestId: string, signal: AbortSignal): Promise<{ decision: Decision; by: string } | 'cancelled'> {
    return new Promise((resolve) => {
      const onAbort = () => {
        this.pending.delete(requestId);
        resolve('cancelled');
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.pending.set(requestId, {
        resolve: (d) => {
          signal.removeEventListener('abort', onAbort);
          resolve(d);
        },
      });
    });
  }

  respond(requestId: string, decision: Decision, by: string): void {
    const p = this.pending.get(requestId);
    if (!p) {
      const earlier = this.decided.get(requestId);
      if (earlier) throw new FerretError('already_decided', `permission ${requestId} was already decided (${earlier})`);
      throw new FerretError('permission_not_found', `no pending permission request ${requestId}`, { field: 'id' });
    }
    this.pending.delete(requestId);
    this.decided.set(requestId, decision);
    p.resolve({ decision, by });
  }

  ids(): string[] {
    return [...this.pending.keys()];
  }
}
