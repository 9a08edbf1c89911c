import { z } from 'zod';
import type { FleetCall } from '../session-store.js';
import { INSTANCE_ID } from './fleet-trust.js';

// What a command-bus message may hold once its MAC is checked (fleet-trust.ts): a signed message
// of the wrong shape (another version's, a bug's) is dropped too, never half-read.

const id = z.string().regex(/^[0-9a-f]{1,64}$/);
const sessionId = z.string().min(1).max(200);
const origin = z.string().max(500).optional();

const FleetCallSchema: z.ZodType<FleetCall> = z.discriminatedUnion('op', [
  z.object({ sessionId, op: z.literal('startTurn'), text: z.string(), origin, turnId: z.string().max(200).optional() }).strict(),
  z.object({ sessionId, op: z.literal('beginTurn'), text: z.string(), origin }).strict(),
  z.object({ sessionId, op: z.literal('close') }).strict(),
  z.object({ sessionId, op: z.literal('cancel') }).strict(),
  z.object({ sessionId, op: z.literal('respondPermission'), requestId: z.string().min(1).max(200), decision: z.enum(['allow', 'deny', 'always', 'never']), by: z.string().max(500) }).strict(),
  z.object({ sessionId, op: z.literal('setMode'), mode: z.enum(['code', 'plan']) }).strict(),
  z.object({ sessionId, op: z.literal('setModel'), model: z.string().min(1).max(500) }).strict(),
  z.object({ sessionId, op: z.literal('setReasoning'), effort: z.enum(['minimal', 'low', 'medium', 'high']) }).strict(),
  z.object({ sessionId, op: z.literal('setApproval'), preset: z.enum(['suggest', 'auto', 'full-auto']) }).strict(),
  z.object({ sessionId, op: z.literal('rename'), title: z.string().min(1).max(200) }).strict(),
]);

const from = z.string().regex(INSTANCE_ID);
const stamp = { ts: z.number(), n: z.string() };

export const BusMessageSchema = z.union([
  z.object({ t: z.literal('call'), id, from, call: FleetCallSchema, ...stamp }).strict(),
  z.object({ t: z.literal('reply'), id, from, ok: z.literal(true), result: z.unknown(), ...stamp }).strict(),
  z
    .object({
      t: z.literal('reply'),
      id,
      from,
      ok: z.literal(false),
      error: z.object({ code: z.string().max(100), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }).strict(),
      ...stamp,
    })
    .strict(),
]);
export type BusMessage = z.infer<typeof BusMessageSchema>;
