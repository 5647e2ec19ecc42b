// Run by the event-loop benchmark as a process of its own: GET <base>/health every <interval> ms until its stdin
// closes (the bench ends the phase, or is gone), then the requests as one JSON array on stdout: [sent at (ms since the
// epoch, performance.timeOrigin + now), duration (ms)] each. A health checker is another process: sampled from the
// bench's own, /health waited also for that process's loop, busy building and sending forty 88 KB requests and
// reading their answers.
import { setTimeout as sleep } from 'node:timers/promises';

const [base, intervalArg] = process.argv.slice(2);
const interval = Number(intervalArg ?? 50);
let sampling = true;
process.stdin.once('close', () => (sampling = false));
process.stdin.resume();
const samples: [number, number][] = [];
while (sampling) {
  const started = performance.now();
  await (await fetch(`${base}/health`)).text();
  samples.push([performance.timeOrigin + started, performance.now() - started]);
  await sleep(interval);
}
process.stdout.write(JSON.stringify(samples));
