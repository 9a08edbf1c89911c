import { z } from 'zod';
import {
  AdditionalDirectoriesSchema,
  BridgeStatusSchema,
  AgentModeSchema,
  ApprovalPresetSchema,
  ReasoningEffortSchema,
  DecisionSchema,
  MAX_IMAGE_BASE64,
  MAX_IMAGE_BYTES,
  MAX_IMAGES_PER_MESSAGE,
  SandboxModeSchema,
  SESSION_ID_PATTERN,
  SessionDescriptionSchema,
  SessionSummarySchema,
  TurnResultSchema,
  UsageSchema,
} from '../../core/index.js';
import { HTTP_ERROR_CODES } from './errors.js';

// The wire shapes of the HTTP routes: they validate requests and feed the OpenAPI document.
// Shapes a client meets in several places are named components (`$ref`s in the document).

const named = <S extends z.ZodType>(id: string, schema: S): S => {
  z.globalRegistry.add(schema, { id });
  return schema;
};

/** Session ids become folder names: only this shape passes, so `..%2F` never reaches the disk. */
export const CommandList = named(
  'CommandList',
  z.object({
    commands: z
      .array(z.object({ name: z.string().describe('Typed as the message text /name'), description: z.string(), hint: z.string().optional().describe('What the argument is, when it takes one'), source: z.enum(['builtin', 'workspace', 'user']).optional().describe("builtin: ferret's own; workspace: the workspace's .ferret/commands or .claude/commands; user: $CHIMERA_HOME/ferret/commands") }))
      .describe("The built-in slash commands, then the team's own from .ferret/commands, .claude/commands and $CHIMERA_HOME/ferret/commands"),
  }),
);

export const SessionParams = z.object({
  id: z.string().regex(SESSION_ID_PATTERN, 'not a session id (letters, digits, _ and -, at most 64)').describe('A session id'),
});

export const NewSessionBody = named(
  'NewSession',
  z
    .object({
      cwd: z.string().min(1).optional().describe('Workspace folder (default: the server\'s --cwd); relative to it if relative'),
      model: z.string().min(1).optional().describe('PROVIDER/MODEL or scripted:PATH; refused with 422 if it cannot run here'),
      mode: AgentModeSchema.optional(),
      approval: ApprovalPresetSchema.optional(),
      additionalDirectories: AdditionalDirectoriesSchema.optional().describe('Extra workspace roots (absolute folders that exist): the file tools reach them under the same sandbox rules as cwd'),
    })
    .strict(),
);

export const SessionDescription = named('SessionDescription', SessionDescriptionSchema);
export const SessionSummary = named('SessionSummary', SessionSummarySchema.extend({ approval: ApprovalPresetSchema.optional().describe('The approval preset (live sessions only)') }));
export const SessionList = named(
  'SessionList',
  z.object({
    sessions: z.array(SessionSummary),
    nextCursor: z.string().optional().describe('More sessions follow: pass this back as ?cursor= for the next page'),
  }),
);
export const ListQuery = z.object({
  cursor: z.string().min(1).optional().describe('nextCursor of the previous page'),
  limit: z.coerce.number().int().positive().max(10_000).optional().describe('Sessions per page (default 1000)'),
});
export const Usage = named('Usage', UsageSchema.required());

export const SessionDetail = named(
  'SessionDetail',
  SessionDescription.extend({
    title: z.string().optional(),
    additionalDirectories: z.array(z.string()).optional().describe('Extra workspace roots (real paths), besides cwd'),
    status: z.enum(['idle', 'running']),
    usage: Usage,
    costUsd: z.number(),
    turns: z.number(),
    lastSeq: z.number().describe('The seq of the last event: resume the stream from here with Last-Event-ID'),
    createdAt: z.string(),
    updatedAt: z.string(),
  }),
);

/** A message's text: as much as every other route's whole body (the route's larger limit is for images). */
export const MAX_MESSAGE_TEXT = 1024 * 1024;
export const ImageInput = named(
  'ImageInput',
  z
    .object({
      data: z.string().min(1).max(MAX_IMAGE_BASE64 + 64).describe(`The image's bytes, base64 (a data: URL prefix is taken off); PNG, JPEG, GIF or WebP, at most ${MAX_IMAGE_BYTES} bytes decoded`),
      mimeType: z.string().optional().describe('What the sender says it is; the bytes decide'),
    })
    .strict(),
);
export const MentionInput = named(
  'MentionInput',
  z
    .object({
      uri: z.string().min(1).describe("A file or folder to give the model as context: file:///abs/path, or a path relative to the workspace; read under read_file's rules"),
      name: z.string().optional().describe('The name the client showed'),
    })
    .strict(),
);
export const MessageBody = named(
  'Message',
  z
    .object({
      text: z.string().max(MAX_MESSAGE_TEXT).describe(`What the user says, or a slash command such as /status (at most ${MAX_MESSAGE_TEXT} characters)`),
      images: z.array(ImageInput).max(MAX_IMAGES_PER_MESSAGE).optional().describe(`Images for the model (at most ${MAX_IMAGES_PER_MESSAGE}); a text-only model is told one was there`),
      mentions: z.array(MentionInput).max(20).optional().describe('@-mentioned files or folders (the first 20 are read)'),
    })
    .strict(),
);
/** The message route takes images: its body may be this large (every other route keeps the server's limit). */
export const MESSAGE_BODY_LIMIT = 32 * 1024 * 1024;
/**
 * Who sends a message: the prompt's origin becomes `http:NAME` (else `http`), so a shared
 * session's readers can tell a bot from a person (the console sends `console`).
 */
export const MessageHeaders = z
  .object({
    'x-ferret-client': z
      .string()
      .regex(/^[\w .@-]{1,40}$/, 'a name of 1-40 letters, digits, spaces, dots, @, _ or -')
      .optional()
      .describe('the sending client\'s name (a bot\'s name, or `console`); the prompt\'s origin is then `http:NAME`'),
  })
  .loose();

export const MessageQuery = z.object({
  wait: z
    .enum(['true', 'false', '1', '0'])
    .default('true')
    .describe('false: answer 202 at once and follow the turn on the event stream')
    .transform((w) => w === 'true' || w === '1'),
});
export const TurnResult = named('TurnResult', TurnResultSchema);
export const TurnAccepted = named('TurnAccepted', z.object({ turnId: z.string() }));

export const Ok = named('Ok', z.object({ ok: z.literal(true) }));
export const ModeBody = z.object({ mode: AgentModeSchema }).strict();
export const ModeResult = z.object({ mode: AgentModeSchema });
export const ModelBody = z.object({ model: z.string().min(1) }).strict();
export const ModelResult = z.object({ model: z.string() });
export const ReasoningBody = z.object({ effort: ReasoningEffortSchema }).strict();
export const ReasoningResult = z.object({ reasoning: ReasoningEffortSchema });
/** /undo and /redo: `force` overwrites files changed outside ferret since the checkpoint. */
export const UndoBody = named('UndoBody', z.object({
  force: z.boolean().optional().describe('overwrite files changed outside ferret since the checkpoint (refused without it)'),
  mode: z.enum(['code', 'conversation', 'both']).optional().describe('what to put back: the files, what the model sees, or both (default); ignored by redo, which puts back what its undo took'),
}).strict());
export const RewindBody = named('RewindBody', z.object({
  turn: z.number().int().positive().optional().describe('go back to before this turn (1 = the first); absent (and no turnId): list the turns'),
  turnId: z.string().regex(/^turn_[\w-]{1,64}$/).optional().describe('the turn by its id (turn_start), instead of its number'),
  mode: z.enum(['code', 'conversation', 'both']).optional().describe('what to put back: the files, what the model sees, or both (default)'),
  force: z.boolean().optional().describe('overwrite files changed outside ferret since the checkpoint'),
}).strict());
export const RenameBody = named('SessionRename', z.object({ title: z.string().describe('The new title: one line, 1–200 characters after trimming') }).strict());
export const RenameResult = z.object({ title: z.string() });
export const ApprovalBody = z.object({ preset: ApprovalPresetSchema }).strict();
export const ApprovalResult = named('ApprovalChange', z.object({ old: ApprovalPresetSchema, new: ApprovalPresetSchema }));
export const SandboxResult = z.object({ mode: SandboxModeSchema });
export const PermissionBody = named(
  'PermissionAnswer',
  z.object({ id: z.string().min(1).describe('The permission request id (permission_request.id on the stream)'), decision: DecisionSchema }).strict(),
);
export const BridgeResult = named('BridgeStatus', BridgeStatusSchema);
export const ModelList = named(
  'ModelList',
  z.object({
    default: z.string().describe("The server's default model (what a session gets when none is given)"),
    models: z.array(z.object({ id: z.string().describe('What POST /session and POST /session/:id/model take'), name: z.string(), description: z.string().optional() })).describe('Every model that can run now, the default first: the list the ACP model picker offers'),
  }),
);
export const PromptsQuery = z.object({
  after: z.coerce.number().int().nonnegative().default(0).describe('Only prompts whose seq is greater (default 0: all)'),
});
export const PromptList = named(
  'PromptList',
  z.object({
    prompts: z.array(
      z.object({
        seq: z.number().int().describe("The turn_start event's seq: it sorts before every frame of its turn"),
        turnId: z.string(),
        text: z.string().describe('What the user said (or the slash command)'),
        origin: z.string().optional().describe('Who started the turn: http, acp:N, …'),
      }),
    ),
  }),
);
export const AuthState = named(
  'AuthState',
  z.object({
    tokenRequired: z.boolean().describe('The server has a token: a browser logs in with it first'),
    authenticated: z.boolean().describe('This request may use the API (token, login cookie, or no token needed)'),
    csrfToken: z.string().optional().describe('With a login cookie: send it as X-Ferret-CSRF on every POST'),
  }),
);
export const LoginBody = named('Login', z.object({ token: z.string().min(1).max(4096).describe('FERRET_SERVER_TOKEN') }).strict());
export const Health = named(
  'Health',
  z.object({
    ok: z.literal(true).describe('The server answers (liveness; in fleet mode see `redis` for whether it can take turns)'),
    version: z.string(),
    store: z.enum(['file', 'redis']).describe('Where sessions are kept: files under CHIMERA_HOME, or Redis (fleet mode, --store)'),
    redis: z
      .enum(['connecting', 'ready', 'down', 'closed'])
      .optional()
      .describe('Fleet mode: the Redis connection. While it is not ready, new sessions and turns are refused with `storage`; ferret reconnects by itself'),
    redisSince: z.string().optional().describe('Fleet mode: since when the connection is in that state (ISO time)'),
  }),
);
export const OpenApiDocument = z.looseObject({ openapi: z.string() }).describe('This document');

export const ErrorCode = named('ErrorCode', z.enum(HTTP_ERROR_CODES));
export const ErrorBody = named('Error', z.object({ error: z.object({ code: ErrorCode, message: z.string().describe('One sentence; names the field when input was wrong') }) }));

const WHY: Record<number, string> = {
  400: 'Invalid input (error.code invalid_params); the message names the field',
  401: 'Missing or wrong bearer token (unauthorized)',
  403: 'Refused (forbidden): the Host header is not this server (DNS-rebinding guard), a cross-site browser request, or a login cookie without its CSRF token',
  404: 'No such session, permission request or route',
  406: 'The Accept header does not allow text/event-stream (not_acceptable)',
  409: 'The session is busy with another turn, or the permission was already decided',
  413: 'The request body is larger than the server accepts (payload_too_large)',
  415: 'The body is not application/json (unsupported_media_type)',
  422: 'The model cannot run here: unknown id (model_unavailable) or no API key (auth_required)',
  500: 'The server could not do it (storage, internal)',
};

/** Error answers, always JSON in the one shape, whatever the route produces on success. */
export function errors(...statuses: number[]) {
  return Object.fromEntries(statuses.map((s) => [s, { description: WHY[s] ?? 'Error', content: { 'application/json': { schema: ErrorBody } } }]));
}

/** Every route: the token and the Host guard, and a server fault. */
export const guardErrors = errors(401, 403, 500);
/** Routes on one session. */
export const sessionErrors = errors(400, 401, 403, 404, 500);
/** Routes that take a JSON body. */
export const bodyErrors = errors(400, 401, 403, 404, 413, 415, 500);
