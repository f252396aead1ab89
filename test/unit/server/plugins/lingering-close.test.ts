import { createServer, type Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import Fastify from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { lingerAfterAnswer, registerLingeringClose } from '../../../../src/server/plugins/lingering-close.js';
import { until } from '../../../helpers/until.js';

/** A server that answers 429 before reading a byte of the body, lingering within `limits`. */
async function earlyAnswerServer(limits: { ms: number; bytes: number }): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    lingerAfterAnswer(req, res, limits);
    res.writeHead(429, { 'content-type': 'text/plain', 'content-length': '4' });
    res.end('busy');
  });
  // Nothing but the linger's own bounds may close a connection within a test.
  server.keepAliveTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port };
}

/** A raw client: what it received, and whether the server closed on it. */
function rawClient(port: number): { socket: Socket; received: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let text = '';
  socket.on('data', (c: Buffer) => (text += c.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  return { socket, received: () => text, closed };
}

const post = (length: number) => `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: ${length}\r\n\r\n`;

describe('lingerAfterAnswer: an answer given before the body', () => {
  let server: Server | undefined;
  afterEach(async () => {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
    server = undefined;
  });

  it('reads and drops a body that ends in time, and the connection serves the next request', async () => {
    const s = await earlyAnswerServer({ ms: 5_000, bytes: 1024 * 1024 });
    server = s.server;
    const client = rawClient(s.port);
    client.socket.write(post(300_000));
    await until(() => client.received().includes('busy'));
    client.socket.write(Buffer.alloc(300_000));
    client.socket.write(post(0));
    await until(() => client.received().split('HTTP/1.1 429').length === 3);
    expect(client.socket.destroyed).toBe(false);
    client.socket.destroy();
  });

  it('closes the connection once more than its byte bound arrives', async () => {
    const s = await earlyAnswerServer({ ms: 60_000, bytes: 64 * 1024 });
    server = s.server;
    const client = rawClient(s.port);
    client.socket.write(post(10_000_000));
    await until(() => client.received().includes('busy'));
    for (let i = 0; i < 40 && !client.socket.destroyed; i++) client.socket.write(Buffer.alloc(16 * 1024));
    await client.closed;
    expect(client.received()).toContain('HTTP/1.1 429');
  });

  it('closes the connection of a body that stalls once its time bound passes', async () => {
    const s = await earlyAnswerServer({ ms: 300, bytes: 1024 * 1024 });
    server = s.server;
    const client = rawClient(s.port);
    client.socket.write(post(1_000_000));
    client.socket.write(Buffer.alloc(1000));
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 429/);
  });
});

describe('registerLingeringClose', () => {
  it('takes off the Connection: close of an answer given before its body (not of one without a body), and fetch reads every such 413', async () => {
    const app = Fastify();
    registerLingeringClose(app);
    // Multipart is left unparsed: the answer goes out before the body is read, as the corpus route's 413 and 429 do.
    app.addContentTypeParser('multipart/form-data', (_req, _payload, done) => done(null));
    app.post('/upload', async (_request, reply) => reply.code(413).header('connection', 'close').send({ detail: 'Archive too large' }));
    app.get('/bye', async (_request, reply) => reply.header('connection', 'close').send({ ok: true }));
    const url = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      // A request without a body keeps the Connection: close it was answered with (a draining server's).
      const bye = await fetch(`${url}/bye`);
      expect(bye.headers.get('connection')).toBe('close');
      await bye.json();
      const answers: string[] = [];
      for (let i = 0; i < 60; i++) {
        const form = new FormData();
        form.append('file', new Blob([Buffer.alloc(200_000 * (i % 3))]), 'a.zip');
        const res = await fetch(`${url}/upload`, { method: 'POST', body: form }).catch((err: Error) => err);
        answers.push(res instanceof Error ? `${res.message}: ${String(res.cause)}` : `${res.status} ${res.headers.get('connection') ?? ''} ${JSON.stringify(await res.json())}`);
      }
      // The reset itself shows between processes (test/api/corpora-bounds.test.ts), rarely within one.
      expect(answers.filter((a) => a !== '413  {"detail":"Archive too large"}')).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
