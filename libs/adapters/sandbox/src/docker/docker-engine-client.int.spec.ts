// The Engine client's transport over TCP (the fake Engine of docker-sandbox.int.spec.ts covers the unix socket):
// a node:http server on 127.0.0.1 stands in for the Engine.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ValidationError } from '#kernel';
import { DockerApiError, DockerEngineClient } from './docker-engine-client.js';

describe('DockerEngineClient', () => {
  let server: Server;
  let port: number;
  const seen: { method: string; url: string; type: string | undefined; body: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        seen.push({
          method: req.method ?? '',
          url: req.url ?? '',
          type: req.headers['content-type'],
          body: Buffer.concat(chunks).toString(),
        });
        if (req.url === '/_ping') res.end('OK');
        else if (req.url === '/big') res.end(Buffer.alloc(64 * 1024));
        else {
          res.writeHead(409, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ message: 'container is not running' }));
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('speaks to a tcp:// and an http:// endpoint, JSON bodies typed as JSON', async () => {
    for (const endpoint of [`tcp://127.0.0.1:${port}`, `http://127.0.0.1:${port}/ignored`]) {
      const client = new DockerEngineClient(endpoint);
      expect(client.where).toBe(`http://127.0.0.1:${port}`);
      const ping = await client.request('GET', '/_ping', undefined, AbortSignal.timeout(5_000));
      expect({ status: ping.status, body: new TextDecoder().decode(ping.body) }).toEqual({
        status: 200,
        body: 'OK',
      });
      await client.close();
    }
    const client = new DockerEngineClient(`tcp://127.0.0.1:${port}`);
    const error = await client
      .call('POST', '/exec', { Cmd: ['true'] }, [201], 'create an exec')
      .catch((e) => e);
    expect(error).toBeInstanceOf(DockerApiError);
    expect((error as DockerApiError).status).toBe(409);
    expect((error as Error).message).toBe('Docker Engine: create an exec: 409 container is not running');
    expect(seen.at(-1)).toEqual({
      method: 'POST',
      url: '/exec',
      type: 'application/json',
      body: '{"Cmd":["true"]}',
    });
    await client.request('PUT', '/archive', new Uint8Array([1, 2]), AbortSignal.timeout(5_000));
    expect(seen.at(-1)).toMatchObject({ type: 'application/x-tar' });
    await client.close();
  });

  it('refuses an answer past its bound', async () => {
    const client = new DockerEngineClient(`tcp://127.0.0.1:${port}`);
    await expect(client.request('GET', '/big', undefined, AbortSignal.timeout(5_000), 1024)).rejects.toThrow(
      'answer larger than 1024 bytes',
    );
    await client.close();
  });

  it('refuses an endpoint that is not unix://, tcp:// or http(s):// with 400', () => {
    for (const endpoint of ['ssh://host', '/var/run/docker.sock', 'npipe:////./pipe/docker_engine'])
      expect(() => new DockerEngineClient(endpoint)).toThrow(ValidationError);
    expect(new DockerEngineClient('unix:///var/run/docker.sock').where).toBe('unix:///var/run/docker.sock');
  });
});
