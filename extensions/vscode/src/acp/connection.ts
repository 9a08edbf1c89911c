import { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import { FERRET_NS } from '../model/ferret-meta.js';
import type { ServerProcess } from './server-process.js';

/** What the extension does when the agent calls the client (ACP v1's client-side methods). */
export interface ClientHandlers {
  permission(p: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse>;
  readTextFile(p: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse>;
  /** Answered once the person decided (`signal`: the agent withdrew the request). */
  writeTextFile(p: acp.WriteTextFileRequest, signal: AbortSignal): Promise<acp.WriteTextFileResponse>;
  update(n: acp.SessionNotification): void;
  /** `_ferret/...` and any other extension notification. */
  extension(method: string, params: unknown): void;
}

/**
 * What this client can do. Terminals stay in ferret's sandbox (docs/ide.md), so none are offered;
 * ferret's extension notifications are asked for by name (other agents ignore the `_meta`).
 */
export const CLIENT_CAPABILITIES: acp.ClientCapabilities = {
  fs: { readTextFile: true, writeTextFile: true },
  terminal: false,
  _meta: {
    [FERRET_NS]: {
      notifications: ['_ferret/notice', '_ferret/turn_end', '_ferret/sandbox_violation', '_ferret/process_started', '_ferret/process_exited'],
      // Writes are held as pending edits: a file may exist here before it exists on disk, and a
      // missing one is answered -32002, so a server may ask for files it cannot find on disk.
      editStaging: true,
      // A write is answered when the person accepts or rejects it: ferret waits for it with no deadline.
      reviewsWrites: true,
    },
  },
};

/** The SDK's client over the server's stdio (newline-delimited JSON-RPC). */
export function connect(server: ServerProcess, h: ClientHandlers): acp.ClientConnection {
  return connectStream(acp.ndJsonStream(Writable.toWeb(server.child.stdin!), Readable.toWeb(server.child.stdout!) as ReadableStream<Uint8Array>), h);
}

/** The SDK's client over any message stream (stdio, or ACP over HTTP: path-stream.ts). */
export function connectStream(stream: acp.Stream, h: ClientHandlers): acp.ClientConnection {
  return acp
    .client({ name: 'chimera-vscode' })
    .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => h.permission(params, signal))
    .onRequest(acp.methods.client.fs.readTextFile, ({ params }) => h.readTextFile(params))
    .onRequest(acp.methods.client.fs.writeTextFile, ({ params, signal }) => h.writeTextFile(params, signal))
    .onNotification(acp.methods.client.session.update, ({ params }) => h.update(params))
    .onNotification('*', ({ method, params }) => h.extension(method, params))
    .connect(stream);
}

/** `continues`: the client id an earlier connection of this window was given (a reload goes on with its turn). */
export async function initialize(agent: acp.ClientContext, version: string, continues?: string): Promise<acp.InitializeResponse> {
  const ours = CLIENT_CAPABILITIES._meta![FERRET_NS] as Record<string, unknown>;
  const init = await agent.request(acp.methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: continues ? { ...CLIENT_CAPABILITIES, _meta: { [FERRET_NS]: { ...ours, continues } } } : CLIENT_CAPABILITIES,
    clientInfo: { name: 'chimera-vscode', title: 'Chimera for VS Code', version },
  });
  if (init.protocolVersion !== acp.PROTOCOL_VERSION) throw new Error(`the server speaks ACP version ${init.protocolVersion}, this extension speaks ${acp.PROTOCOL_VERSION}`);
  return init;
}
