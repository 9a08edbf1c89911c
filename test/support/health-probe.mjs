// A small process that asks GET <url>/health every 20 ms, one request at a time, and prints
// "<wall-clock ms> <latency ms>" per answer on stdout as it goes; it stops when its stdin closes.
// Latency tests run it instead of probing from the test process: a vitest worker is a heavy
// process (its JIT, GC, the server's event stream it reads), whose own stalls would be counted
// as the server's. Started from the test, it is outside every cgroup ferret makes for commands.
// Usage: node health-probe.mjs http://127.0.0.1:PORT
import http from 'node:http';

const url = new URL('/health', process.argv[2]);
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stop = false;
process.stdin.on('end', () => (stop = true)).resume();

function ask() {
  return new Promise((resolve, reject) => {
    http.get(url, { agent }, (res) => res.resume().on('end', resolve)).on('error', reject);
  });
}

while (!stop) {
  const t = performance.now();
  await ask();
  process.stdout.write(`${(performance.timeOrigin + t).toFixed(1)} ${(performance.now() - t).toFixed(1)}\n`);
  await new Promise((r) => setTimeout(r, 20));
}
agent.destroy();
