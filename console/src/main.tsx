// The web console: served by `chimera ferret serve --http` at / (docs/console.md), and by a
// cloud-bridge relay, where its calls go through the encrypted tunnel (bridge.ts).
import { render } from 'preact';
import { installBridge } from './bridge.js';
import { App } from './ui/app.js';

installBridge();
render(<App />, document.getElementById('app')!);
