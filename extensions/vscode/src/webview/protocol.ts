import type { ChatView } from '../model/chat-model.js';

// Messages between the extension and the chat webview (postMessage, structured-cloned).

export type HostMessage = { type: 'state'; view: ChatView };

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'prompt'; text: string }
  | { type: 'stop' }
  | { type: 'config'; configId: string; value: string }
  | { type: 'start' }
  | { type: 'resume' }
  | { type: 'showLog' }
  | { type: 'review'; path: string }
  | { type: 'accept'; path: string }
  | { type: 'reject'; path: string }
  | { type: 'acceptAll'; scope: 'now' | 'turn' | 'session' }
  | { type: 'retry'; text: string }
  | { type: 'settings'; setting: string };
