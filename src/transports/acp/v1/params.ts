import { z } from 'zod';
import { lazySchema } from '../../../core/index.js';
import { AdditionalDirectoriesSchema } from '../../../protocol/index.js';

// Inbound ACP v1 params, validated at the edge. Loose objects: clients add fields (and `_meta`)
// that newer schema versions define, and those must not fail a request.

const SessionId = lazySchema(() => z.string().min(1));
const AbsPath = lazySchema(() => z.string().min(1).refine((p) => p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p), 'must be an absolute path'));
const NameValue = lazySchema(() => z.object({ name: z.string(), value: z.string() }).loose());

/** ACP `McpServer`: stdio has no `type`; http and sse carry one. */
export const McpServerParam = lazySchema(() =>
  z.union([
    z.object({ type: z.literal('http'), name: z.string().min(1), url: z.string().min(1), headers: z.array(NameValue).default([]) }).loose(),
    z.object({ type: z.literal('sse'), name: z.string().min(1), url: z.string().min(1), headers: z.array(NameValue).default([]) }).loose(),
    z
      .object({
        type: z.literal('stdio').optional(),
        name: z.string().min(1),
        command: z.string().min(1),
        args: z.array(z.string()).default([]),
        env: z.array(NameValue).default([]),
      })
      .loose(),
  ]),
);
export type McpServerParam = z.infer<typeof McpServerParam>;

/** What the client says it can do; every field optional (omitted = not supported). */
export const ClientCaps = lazySchema(() =>
  z
    .object({
      fs: z.object({ readTextFile: z.boolean().optional(), writeTextFile: z.boolean().optional() }).loose().nullish(),
      terminal: z.boolean().nullish(),
      session: z.object({ notices: z.unknown().optional(), compaction: z.unknown().optional() }).loose().nullish(),
      _meta: z.record(z.string(), z.unknown()).nullish(),
    })
    .loose(),
);
export type ClientCaps = z.infer<typeof ClientCaps>;

const ContentBlock = lazySchema(() => z.object({ type: z.string() }).loose());
export type ContentBlockParam = z.infer<typeof ContentBlock>;

export const P = {
  authenticate: lazySchema(() => z.object({ methodId: z.string().min(1) }).loose()),
  initialize: lazySchema(() => z.object({ protocolVersion: z.number().int(), clientCapabilities: ClientCaps.nullish() }).loose()),
  newSession: lazySchema(() => z.object({ cwd: AbsPath, additionalDirectories: AdditionalDirectoriesSchema.optional(), mcpServers: z.array(McpServerParam).default([]) }).loose()),
  loadSession: lazySchema(() => z.object({ sessionId: SessionId, cwd: AbsPath.optional(), additionalDirectories: AdditionalDirectoriesSchema.optional(), mcpServers: z.array(McpServerParam).default([]) }).loose()),
  forkSession: lazySchema(() => z.object({ sessionId: SessionId, cwd: AbsPath, additionalDirectories: AdditionalDirectoriesSchema.optional(), mcpServers: z.array(McpServerParam).default([]) }).loose()),
  listSessions: lazySchema(() => z.object({ cwd: z.string().nullish(), cursor: z.string().nullish() }).loose()),
  session: lazySchema(() => z.object({ sessionId: SessionId }).loose()),
  prompt: lazySchema(() => z.object({ sessionId: SessionId, prompt: z.array(ContentBlock) }).loose()),
  setMode: lazySchema(() => z.object({ sessionId: SessionId, modeId: z.string().min(1) }).loose()),
  setConfigOption: lazySchema(() => z.object({ sessionId: SessionId, configId: z.string().min(1), value: z.union([z.string(), z.boolean()]) }).loose()),
  setApproval: lazySchema(() => z.object({ sessionId: SessionId, preset: z.string() }).loose()),
  rename: lazySchema(() => z.object({ sessionId: SessionId, title: z.string() }).loose()),
};
