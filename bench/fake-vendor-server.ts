// A fake vendor upstream (libs/core/testing/src/fake-vendors) as a process of its own, for the providers benchmark.
// Argument 1 is the provider type, argument 2 the key it requires. Prints `{"baseUrl":"…"}` once it listens on
// 127.0.0.1, and exits on SIGTERM/SIGINT or when its stdin closes (the parent went away, however it ended).
import { FAKE_VENDORS } from '#testing/fake-vendors/index';

async function main(): Promise<void> {
  const [type = 'openai', apiKey = 'bench-key'] = process.argv.slice(2);
  const vendor = FAKE_VENDORS[type];
  if (!vendor) throw new Error(`no fake vendor of type ${type}`);
  const fake = await vendor.start({ apiKey });
  fake.script({ text: 'Hello there. This fixed reply stands for a short answer of a model.' });
  // The fake keeps every request for test assertions; a benchmark sends many thousands, so drop them often.
  const forget = setInterval(() => {
    (fake.requests as unknown[]).length = 0;
  }, 200);
  const shutdown = () => {
    clearInterval(forget);
    void fake.close().finally(() => process.exit(0));
  };
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdin.on('close', shutdown);
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ baseUrl: fake.baseUrl })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`fake vendor failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
