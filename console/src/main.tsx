// The web console: served by `chimera ferret serve --http` at / (docs/console.md).
import { render } from 'preact';
import { App } from './ui/app.js';

render(<App />, document.getElementById('app')!);
