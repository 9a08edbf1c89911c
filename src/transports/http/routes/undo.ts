import type { HttpContext, ZodApp } from '../context.js';
import { errors, RewindBody, SessionParams, TurnResult, UndoBody } from '../schemas.js';

/**
 * Checkpoints: undo, redo, rewind. Each is the slash command of the same name, run as a turn (so
 * it waits for no running turn: 409 while one runs) and answered with that turn's result; a
 * refusal (a file changed outside ferret, nothing to undo) is `stopReason: error` with the reason.
 */
export function undoRoutes(app: ZodApp, ctx: HttpContext): void {
  const m = ctx.manager;
  const run = async (id: string, text: string) => m.command(m.get(id).id, { op: 'startTurn', text, origin: 'http' });
  const words = (...w: (string | false | undefined)[]) => w.filter((x): x is string => typeof x === 'string' && x !== '').join(' ');
  const answers = { 200: TurnResult, ...errors(400, 401, 403, 404, 409, 413, 415, 500) };

  app.post('/session/:id/undo', {
    schema: { operationId: 'undoTurn', tags: ['turns'], summary: "Undo the last turn: its files as they were before it, and the model no longer sees it (the /undo command)", params: SessionParams, body: UndoBody, response: answers },
  }, async (req) => run(req.params.id, words('/undo', req.body?.mode, req.body?.force && 'force')));

  app.post('/session/:id/redo', {
    schema: { operationId: 'redoTurn', tags: ['turns'], summary: 'Put back what the last undo or rewind took (the /redo command)', params: SessionParams, body: UndoBody, response: answers },
  }, async (req) => run(req.params.id, words('/redo', req.body?.force && 'force')));

  app.post('/session/:id/rewind', {
    schema: { operationId: 'rewindTurns', tags: ['turns'], summary: 'Go back to before turn N: files, conversation or both (no turn: the turns are listed in the answer)', params: SessionParams, body: RewindBody, response: answers },
  }, async (req) => {
    const b = req.body ?? {};
    const which = b.turnId ?? (b.turn !== undefined ? String(b.turn) : undefined);
    return run(req.params.id, which === undefined ? '/rewind' : words('/rewind', which, b.mode, b.force && 'force'));
  });
}
