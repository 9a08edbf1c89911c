import type { ZodApp } from '../context.js';
import type { Sessions } from '../../../core/index.js';

/**
 * A session this process has not loaded (or let go while idle) is loaded ahead, in chunks that
 * never hold the server, so the routes find it in memory. A command (any method but GET) opens
 * it to write: in a fleet that takes over a session whose writer is gone, and a session another
 * live server writes is followed here (its commands then travel to that server:
 * `SessionManager.command`). Why a command's session cannot be served in a fleet (Redis away, no
 * workspace here) is its answer; otherwise the route reports what went wrong.
 */
export function openSessionsAhead(app: ZodApp, manager: Sessions): void {
  app.addHook('preHandler', async (req) => {
    const id = (req.params as { id?: unknown } | undefined)?.id;
    if (typeof id !== 'string' || !(await manager.has(id).catch(() => false))) return;
    const command = req.method !== 'GET';
    try {
      await manager.open(id, { write: command });
    } catch (err) {
      if (manager.fleetInstance !== undefined && command) throw err;
    }
  });
}
