// The SDK's real ACP v1 client over ACP's streamable HTTP (`/acp`, the SDK's experimental
// createHttpStream), recording and schema-checking what ferret sends like V1Client does on stdio.
import * as acp from '@agentclientprotocol/sdk';
import { createHttpStream } from '@agentclientprotocol/sdk/experimental/http-client';
import { answerPermission, tapStream, v1SchemaErrors, type PermissionPolicy } from './acp-v1-client.js';

type Msg = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export class V1HttpClient {
  readonly inbound: Msg[] = [];
  readonly updates: acp.SessionNotification[] = [];
  readonly permissions: acp.RequestPermissionRequest[] = [];
  readonly agent: acp.ClientContext;
  private readonly conn: acp.ClientConnection;
  private readonly sent = new Map<string | number, string>();
  permissionPolicy: PermissionPolicy = () => 'allow_once';

  /** `url` is the server's base URL; the ACP endpoint is `${url}/acp`. */
  constructor(url: string, { headers }: { headers?: Record<string, string> } = {}) {
    const raw = createHttpStream(`${url}/acp`, headers ? { headers } : {});
    const tapped = tapStream(raw, this.inbound, this.sent);
    const app = acp
      .client({ name: 'ferret-e2e-http' })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params, signal }) => {
        this.permissions.push(params);
        return answerPermission(this.permissionPolicy(params), params, signal);
      })
      .onNotification(acp.methods.client.session.update, ({ params }) => void this.updates.push(params))
      .onNotification('*', () => {});
    this.conn = app.connect(tapped);
    this.agent = this.conn.agent;
  }

  /** No fs capability: a remote client has no editor buffers, so ferret reads and writes the disk itself. */
  initialize(caps: acp.ClientCapabilities = { terminal: false }): Promise<acp.InitializeResponse> {
    return this.agent.request(acp.methods.agent.initialize, { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: caps, clientInfo: { name: 'ferret-e2e-http', version: '0.0.0' } });
  }

  of(sessionId: string): acp.SessionUpdate[] {
    return this.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  schemaErrors(): string[] {
    return v1SchemaErrors(this.inbound, this.sent);
  }

  async waitFor(pred: (m: Msg) => boolean, timeoutMs = 10_000): Promise<Msg> {
    const start = Date.now();
    for (;;) {
      const hit = this.inbound.find(pred);
      if (hit) return hit;
      if (Date.now() - start > timeoutMs) throw new Error(`timed out waiting on the /acp client; got ${this.inbound.map((m) => m['method'] ?? `answer ${m['id']}`).join(', ')}`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  async close(): Promise<void> {
    this.conn.close();
    await this.conn.closed.catch(() => undefined);
  }
}
