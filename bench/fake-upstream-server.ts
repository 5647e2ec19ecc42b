// The fake OpenAI-compatible upstream as a process of its own, for the gateway benchmark: the bench process spawns it
// so that the load client, the api and the upstream each have their own event loop. Argument 1 is the
// FakeUpstreamOptions as JSON. Prints `{"port":<n>}` on stdout once it listens (on 127.0.0.1 only), and exits on
// SIGTERM/SIGINT or when its stdin closes (the parent went away, however it ended).
import { startFakeUpstream, type FakeUpstreamOptions } from '#testing/fake-openai-upstream';

async function main(): Promise<void> {
  const options = JSON.parse(process.argv[2] ?? '{}') as FakeUpstreamOptions;
  const upstream = await startFakeUpstream(options);
  // The fake keeps every request for test assertions; a benchmark sends hundreds of thousands, so drop them often.
  const forget = setInterval(() => {
    upstream.requests.length = 0;
  }, 200);
  let closing = false;
  const shutdown = () => {
    if (closing) return;
    closing = true;
    clearInterval(forget);
    void upstream.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdin.on('close', shutdown);
  process.stdin.on('end', shutdown);
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ port: upstream.port })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake upstream failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
