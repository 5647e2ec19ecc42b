// A reference point for the gateway benchmark, not part of the platform: the thinnest proxy Node can be (fastify in,
// undici out, the upstream's JSON or a stream's bytes passed back as is), run as its own process like the gateway. Its
// added latency is the floor any Node gateway pays on this machine for the extra hop. Argument 1 is
// `{"upstreamPort":<n>}`; prints `{"port":<n>}` once it listens on 127.0.0.1, and exits on SIGTERM/SIGINT or when its
// stdin closes.
import Fastify from 'fastify';
import { Agent, request } from 'undici';

async function main(): Promise<void> {
  const { upstreamPort } = JSON.parse(process.argv[2] ?? '{}') as { upstreamPort: number };
  // No cap on connections per upstream, as the gateway's pool: a stream holds its connection until it ends.
  const agent = new Agent({ keepAliveTimeout: 30_000 });
  const app = Fastify();
  app.post('/v1/chat/completions', async (req, reply) => {
    const upstream = await request(`http://127.0.0.1:${upstreamPort}/v1/chat/completions`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(req.body),
    });
    // A stream's bytes are piped through as they come (no parsing, no re-encoding).
    if ((req.body as { stream?: unknown }).stream === true)
      return reply.status(upstream.statusCode).type('text/event-stream').send(upstream.body);
    return reply
      .status(upstream.statusCode)
      .type('application/json')
      .send(await upstream.body.text());
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const shutdown = () => void app.close().finally(() => process.exit(0));
  process.once('SIGTERM', shutdown);
  process.once('SIGINT', shutdown);
  process.stdin.on('close', shutdown);
  process.stdin.resume();
  process.stdout.write(`${JSON.stringify({ port: (app.server.address() as { port: number }).port })}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bare proxy failed: ${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
