import { z } from 'zod';

export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_METHOD_NOT_FOUND = -32601;
export const JSONRPC_INVALID_PARAMS = -32602;
export const JSONRPC_INTERNAL_ERROR = -32603;

export type JsonRpcId = string | number | null;

const IdSchema = z.union([z.string(), z.number(), z.null()]);

/** One inbound line, classified. Batches are not part of ACP: a JSON array gets one -32600 (id null). */
export const RequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: IdSchema.optional(),
  method: z.string().min(1),
  params: z.unknown().optional(),
});
export const ResponseSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: IdSchema,
  result: z.unknown().optional(),
  error: z.object({ code: z.number(), message: z.string(), data: z.unknown().optional() }).optional(),
});

export type Inbound =
  | { kind: 'request'; id: JsonRpcId; method: string; params: unknown }
  | { kind: 'notification'; method: string; params: unknown }
  | { kind: 'response'; id: JsonRpcId; result?: unknown; error?: { code: number; message: string; data?: unknown } }
  | { kind: 'invalid'; id: JsonRpcId; message: string }
  | { kind: 'parse_error'; message: string };

export function classify(line: string): Inbound {
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch (e) {
    return { kind: 'parse_error', message: `Parse error: ${(e as Error).message}` };
  }
  const idOf = (m: unknown): JsonRpcId => {
    const id = (m as { id?: unknown } | null)?.id;
    return typeof id === 'string' || typeof id === 'number' ? id : null;
  };
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) {
    return { kind: 'invalid', id: null, message: 'Invalid Request: expected a JSON-RPC 2.0 object' };
  }
  if ('method' in msg) {
    const r = RequestSchema.safeParse(msg);
    if (!r.success) {
      const issue = r.error.issues[0];
      return { kind: 'invalid', id: idOf(msg), message: `Invalid Request: ${issue?.path.join('.') || 'message'}: ${issue?.message ?? 'invalid'}` };
    }
    if (!('id' in msg)) return { kind: 'notification', method: r.data.method, params: r.data.params };
    return { kind: 'request', id: r.data.id ?? null, method: r.data.method, params: r.data.params };
  }
  const res = ResponseSchema.safeParse(msg);
  if (res.success && ('result' in msg || 'error' in msg)) {
    return { kind: 'response', id: res.data.id, ...(res.data.error ? { error: res.data.error } : { result: res.data.result }) };
  }
  return { kind: 'invalid', id: idOf(msg), message: 'Invalid Request: neither a request nor a response' };
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

/** Zod issue → "-32602 naming the field". */
export function invalidParams(error: z.ZodError): RpcError {
  const issue = error.issues[0];
  const field = issue?.path.map(String).join('.') || 'params';
  return new RpcError(JSONRPC_INVALID_PARAMS, `Invalid params: ${field}: ${issue?.message ?? 'invalid'}`, { field });
}

export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.infer<S> {
  const r = schema.safeParse(params ?? {});
  if (!r.success) throw invalidParams(r.error);
  return r.data;
}
