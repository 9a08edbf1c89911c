import type { HttpContext, ZodApp } from '../context.js';
import {
  ApprovalBody,
  ApprovalResult,
  BridgeResult,
  CommandList,
  bodyErrors,
  errors,
  guardErrors,
  ModeBody,
  ModelBody,
  ModelList,
  ModelResult,
  ModeResult,
  Ok,
  PermissionBody,
  ReasoningBody,
  ReasoningResult,
  SandboxResult,
  SessionParams,
  sessionErrors,
} from '../schemas.js';

/**
 * The knobs of a live session: mode, model, approval, sandbox, permission answers, bridge; and the
 * models to pick from. A command goes through `manager.command` (in a fleet, to the session's writer).
 */
export function controlRoutes(app: ZodApp, ctx: HttpContext): void {
  const m = ctx.manager;

  app.get('/models', {
    schema: { operationId: 'listModels', tags: ['settings'], summary: 'The models a session can use now (the list the ACP model picker offers)', response: { 200: ModelList, ...guardErrors } },
  }, async () => ({
    default: m.defaults.model,
    models: m.models().map((c) => ({ id: c.id, name: c.name, ...(c.description !== undefined ? { description: c.description } : {}) })),
  }));

  app.get('/session/:id/commands', {
    schema: { operationId: 'listCommands', tags: ['settings'], summary: "The slash commands the session offers (send one as a message's text)", params: SessionParams, response: { 200: CommandList, ...sessionErrors } },
  }, async (req) => ({ commands: m.slashCommands((await m.open(req.params.id, { write: false })).state.cwd) }));

  app.post('/session/:id/mode', {
    schema: { operationId: 'setMode', tags: ['settings'], summary: 'Switch the agent mode', params: SessionParams, body: ModeBody, response: { 200: ModeResult, ...bodyErrors } },
  }, async (req) => ({ mode: await m.command(m.get(req.params.id).id, { op: 'setMode', mode: req.body.mode }) }));

  app.post('/session/:id/model', {
    schema: { operationId: 'setModel', tags: ['settings'], summary: 'Switch the model (refused at once when it cannot run here)', params: SessionParams, body: ModelBody, response: { 200: ModelResult, ...bodyErrors, ...errors(422) } },
  }, async (req) => ({ model: await m.command(m.get(req.params.id).id, { op: 'setModel', model: req.body.model }) }));

  app.post('/session/:id/reasoning', {
    schema: { operationId: 'setReasoning', tags: ['settings'], summary: 'Set the reasoning effort of the next model calls (models that take none ignore it)', params: SessionParams, body: ReasoningBody, response: { 200: ReasoningResult, ...bodyErrors } },
  }, async (req) => ({ reasoning: await m.command(m.get(req.params.id).id, { op: 'setReasoning', effort: req.body.effort }) }));

  app.post('/session/:id/approval', {
    schema: { operationId: 'setApproval', tags: ['settings'], summary: 'Switch the approval preset live', params: SessionParams, body: ApprovalBody, response: { 200: ApprovalResult, ...bodyErrors } },
  }, async (req) => m.command(m.get(req.params.id).id, { op: 'setApproval', preset: req.body.preset }));

  app.get('/session/:id/sandbox', {
    schema: { operationId: 'getSandbox', tags: ['settings'], summary: 'The sandbox mode (fixed for the life of the server)', params: SessionParams, response: { 200: SandboxResult, ...sessionErrors } },
  }, async (req) => ({ mode: m.get(req.params.id).state.sandbox }));

  app.post('/session/:id/permission', {
    schema: {
      operationId: 'answerPermission',
      tags: ['turns'],
      summary: 'Answer a pending permission request (first answer from any client wins)',
      params: SessionParams,
      body: PermissionBody,
      response: { 200: Ok, ...bodyErrors, ...errors(409) },
    },
  }, async (req) => {
    await m.command(m.get(req.params.id).id, { op: 'respondPermission', requestId: req.body.id, decision: req.body.decision, by: 'http' });
    return { ok: true as const };
  });

  app.get('/session/:id/bridge', {
    schema: { operationId: 'getBridge', tags: ['settings'], summary: 'Cloud-bridge state', params: SessionParams, response: { 200: BridgeResult, ...sessionErrors } },
  }, async (req) => {
    m.get(req.params.id);
    return m.bridgeStatus();
  });
}
