import { z } from 'zod';
import { FerretUpdateSchema, PlanEntrySchema, TurnResultSchema } from '../../../core/index.js';

// Every SSE frame `GET /session/:id/events` sends, as zod: the OpenAPI document describes each
// event name with its data schema from these, so a generated client gets typed frames.

const ProgressStep = z.object({
  sessionUpdate: z.literal('progress/step'),
  phase: z.enum(['tool_call', 'response']),
  step: z.number().int(),
  detail: z.string(),
  callId: z.string(),
});
const CodeDiff = z.object({ sessionUpdate: z.literal('code/diff'), path: z.string(), changeKind: z.enum(['add', 'modify', 'delete', 'move']), unifiedDiff: z.string(), movedFrom: z.string().optional() });
const TerminalOutput = z.object({
  sessionUpdate: z.literal('terminal/output'),
  processId: z.string(),
  stream: z.enum(['stdout', 'stderr']),
  chunk: z.string(),
  sequence: z.number().int(),
  capReached: z.boolean(),
});
const EditorOpenFile = z.object({ sessionUpdate: z.literal('editor/open_file'), path: z.string(), line: z.number().int().optional() });

/** The four IDE frames (ide.md): `event` is also the data's `sessionUpdate`. */
const IdeFrameData = { 'progress/step': ProgressStep, 'code/diff': CodeDiff, 'terminal/output': TerminalOutput, 'editor/open_file': EditorOpenFile } as const;

export type IdeFrame = { [E in keyof typeof IdeFrameData]: { event: E; data: z.infer<(typeof IdeFrameData)[E]> } }[keyof typeof IdeFrameData];

const frame = <E extends string, D extends z.ZodType>(event: E, data: D) =>
  z.object({ id: z.string().describe('SEQ or SEQ.K: send it back as Last-Event-ID to resume after this frame'), event: z.literal(event), data });

/** One SSE frame as a client parses it (`id:`, `event:`, one JSON `data:` line). */
export const SseFrameSchema = z.discriminatedUnion('event', [
  frame('loop_event', FerretUpdateSchema),
  frame('result', TurnResultSchema),
  frame('progress/step', ProgressStep),
  frame('code/diff', CodeDiff),
  frame('terminal/output', TerminalOutput),
  frame('editor/open_file', EditorOpenFile),
]);

// Named components of the OpenAPI document (a generated client gets one type for each).
z.globalRegistry.add(SseFrameSchema, { id: 'SseFrame' });
z.globalRegistry.add(FerretUpdateSchema, { id: 'FerretUpdate' });
z.globalRegistry.add(PlanEntrySchema, { id: 'PlanEntry' });
for (const [event, schema] of Object.entries(IdeFrameData)) z.globalRegistry.add(schema, { id: `Ide${event.split('/').map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}` });
