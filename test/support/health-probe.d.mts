// health-probe.mjs is a script run as its own process (node health-probe.mjs URL), not a module to import.
export {};
