// @ferret/client: a typed client for ferret's HTTP+SSE API, generated from its OpenAPI document.
// Plain ESM that runs on Node 20 without a build step; the types are in index.d.mts (over the
// generated schema.d.ts). Every call answers its 2xx body or throws a FerretHttpError.
import createClient from 'openapi-fetch';
import { FerretHttpError } from './errors.mjs';
import { FerretEventStream } from './sse.mjs';

export { FerretHttpError, isFerretError } from './errors.mjs';
export { FerretEventStream, SseParser, SseProtocolError, compareFrameIds, parseFrameId } from './sse.mjs';
export { BridgeTunnel, parsePairingLink } from './bridge.mjs';

/**
 * A client for one ferret server: `baseUrl` (e.g. http://127.0.0.1:5173) and the bearer `token`
 * (FERRET_SERVER_TOKEN; omit it for a loopback server started without one).
 */
export function createFerretClient({ baseUrl, token, fetch = globalThis.fetch, headers = {} }) {
  if (!baseUrl) throw new TypeError('createFerretClient: baseUrl is required');
  const base = String(baseUrl).replace(/\/+$/, '');
  const auth = token ? { authorization: `Bearer ${token}` } : {};
  const raw = createClient({ baseUrl: base, fetch: (req) => fetch(req), headers: { ...headers, ...auth } });
  const id = (sessionId) => ({ path: { id: sessionId } });

  /** One call through openapi-fetch: the data of a 2xx, else a FerretHttpError. */
  const call = async (method, path, init = {}, opts = {}) => {
    const { data, error, response } = await raw[method](path, { ...init, ...(opts.signal ? { signal: opts.signal } : {}), ...(opts.headers ? { headers: opts.headers } : {}) });
    if (!response.ok) {
      let p = path;
      for (const [k, v] of Object.entries(init.params?.path ?? {})) p = p.replace(`{${k}}`, encodeURIComponent(v));
      throw FerretHttpError.fromBody(response.status, error, method, p);
    }
    return data;
  };

  return {
    baseUrl: base,
    raw,
    health: (opts) => call('GET', '/health', {}, opts),
    openapi: (opts) => call('GET', '/openapi.json', {}, opts),
    createSession: (body, opts) => call('POST', '/session', body === undefined ? {} : { body }, opts),
    listSessions: (opts = {}) => {
      const query = { ...(opts.limit !== undefined ? { limit: opts.limit } : {}), ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}) };
      return call('GET', '/session', Object.keys(query).length ? { params: { query } } : {}, opts);
    },
    getSession: (sessionId, opts) => call('GET', '/session/{id}', { params: id(sessionId) }, opts),
    listPrompts: (sessionId, opts = {}) =>
      call('GET', '/session/{id}/prompts', { params: { ...id(sessionId), ...(opts.after !== undefined ? { query: { after: opts.after } } : {}) } }, opts),
    listModels: (opts) => call('GET', '/models', {}, opts),
    listCommands: (sessionId, opts) => call('GET', '/session/{id}/commands', { params: id(sessionId) }, opts),
    authState: (opts) => call('GET', '/auth/session', {}, opts),
    login: (loginToken, opts) => call('POST', '/auth/login', { body: { token: loginToken } }, opts),
    logout: (opts) => call('POST', '/auth/logout', {}, opts),
    sendMessage: (sessionId, text, opts = {}) =>
      call(
        'POST',
        '/session/{id}/message',
        { params: { ...id(sessionId), ...(opts.wait === false ? { query: { wait: 'false' } } : {}) }, body: typeof text === 'string' ? { text } : text },
        opts,
      ),
    cancelTurn: (sessionId, opts) => call('POST', '/session/{id}/cancel', { params: id(sessionId) }, opts),
    closeSession: (sessionId, opts) => call('POST', '/session/{id}/close', { params: id(sessionId) }, opts),
    forkSession: (sessionId, opts) => call('POST', '/session/{id}/fork', { params: id(sessionId) }, opts),
    deleteSession: (sessionId, opts) => call('DELETE', '/session/{id}', { params: id(sessionId) }, opts),
    renameSession: (sessionId, title, opts) => call('PATCH', '/session/{id}', { params: id(sessionId), body: { title } }, opts),
    setMode: (sessionId, mode, opts) => call('POST', '/session/{id}/mode', { params: id(sessionId), body: { mode } }, opts),
    setModel: (sessionId, model, opts) => call('POST', '/session/{id}/model', { params: id(sessionId), body: { model } }, opts),
    setReasoning: (sessionId, effort, opts) => call('POST', '/session/{id}/reasoning', { params: id(sessionId), body: { effort } }, opts),
    setApproval: (sessionId, preset, opts) => call('POST', '/session/{id}/approval', { params: id(sessionId), body: { preset } }, opts),
    getSandbox: (sessionId, opts) => call('GET', '/session/{id}/sandbox', { params: id(sessionId) }, opts),
    answerPermission: (sessionId, permissionId, decision, opts) =>
      call('POST', '/session/{id}/permission', { params: id(sessionId), body: { id: permissionId, decision } }, opts),
    undoTurn: (sessionId, body = {}, opts) => call('POST', '/session/{id}/undo', { params: id(sessionId), body }, opts),
    redoTurn: (sessionId, body = {}, opts) => call('POST', '/session/{id}/redo', { params: id(sessionId), body }, opts),
    rewindTurns: (sessionId, body = {}, opts) => call('POST', '/session/{id}/rewind', { params: id(sessionId), body }, opts),
    getBridge: (sessionId, opts) => call('GET', '/session/{id}/bridge', { params: id(sessionId) }, opts),
    events: (sessionId, opts = {}) =>
      new FerretEventStream(`${base}/session/${encodeURIComponent(sessionId)}/events`, { ...opts, fetch, headers: { ...headers, ...(opts.headers ?? {}), ...auth } }),
  };
}
