import type { HttpContext, ZodApp } from './context.js';
import {
  ApprovalBody,
  ApprovalResult,
  BridgeResult,
  ErrorBody,
  ModeBody,
  ModelBody,
  ModelResult,
  ModeResult,
  Ok,
  PermissionBody,
  SandboxResult,
  SessionParams,
  sessionErrors,
} from './schemas.js';

/** The knobs of a live session: mode, model, approval, sandbox, permission answers, bridge. */
export function controlRoutes(app: ZodApp, ctx: HttpContext): void {
  const m = ctx.manager;

  app.post('/session/:id/mode', {
    schema: { summary: 'Switch the agent mode', params: SessionParams, body: ModeBody, response: { 200: ModeResult, ...sessionErrors } },
  }, async (req) => ({ mode: m.get(req.params.id).setMode(req.body.mode) }));

  app.post('/session/:id/model', {
    schema: { summary: 'Switch the model', params: SessionParams, body: ModelBody, response: { 200: ModelResult, 422: ErrorBody, ...sessionErrors } },
  }, async (req) => ({ model: m.get(req.params.id).setModel(req.body.model) }));

  app.post('/session/:id/approval', {
    schema: { summary: 'Switch the approval preset live', params: SessionParams, body: ApprovalBody, response: { 200: ApprovalResult, ...sessionErrors } },
  }, async (req) => m.get(req.params.id).setApproval(req.body.preset));

  app.get('/session/:id/sandbox', {
    schema: { summary: 'The sandbox mode (fixed for the life of the server)', params: SessionParams, response: { 200: SandboxResult, ...sessionErrors } },
  }, async (req) => ({ mode: m.get(req.params.id).state.sandbox }));

  app.post('/session/:id/permission', {
    schema: {
      summary: 'Answer a pending permission request (first answer from any client wins)',
      params: SessionParams,
      body: PermissionBody,
      response: { 200: Ok, 409: ErrorBody, ...sessionErrors },
    },
  }, async (req) => {
    m.get(req.params.id).respondPermission(req.body.id, req.body.decision, 'http');
    return { ok: true as const };
  });

  app.get('/session/:id/bridge', {
    schema: { summary: 'Cloud-bridge state', params: SessionParams, response: { 200: BridgeResult, ...sessionErrors } },
  }, async (req) => {
    m.get(req.params.id);
    return { attached: false };
  });
}
