import { config } from 'zod/v4/core';

// zod (inside the ACP SDK) probes `navigator` when it first builds a schema, to decide whether it
// may generate code; VS Code's Node extension host reports any `navigator` access as an error.
// jitless skips the probe (and `new Function`). It must run before the SDK's modules load.
config({ jitless: true });
