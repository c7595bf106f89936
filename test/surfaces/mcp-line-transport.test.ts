import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, it } from 'node:test';
import { LineTransport, idAtEnds } from '../../src/surfaces/mcp/line-transport.ts';

function harness(maxLineBytes = 1000) {
  const input = new PassThrough();
  const output = new PassThrough();
  const logs: string[] = [];
  const messages: unknown[] = [];
  let out = '';
  output.on('data', (d) => (out += d));
  const t = new LineTransport(input, output, (l) => logs.push(l), maxLineBytes);
  t.onmessage = (m) => messages.push(m);
  const settle = () => new Promise((r) => setImmediate(r));
  return { t, input, logs, messages, replies: () => out.split('\n').filter(Boolean).map((l) => JSON.parse(l)), settle };
}

const ping = (id: number | string) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`;

describe('stdio line transport', () => {
  it('delivers a message split across writes, and several in one write', async () => {
    const h = harness();
    await h.t.start();
    const line = ping(1);
    h.input.write(line.slice(0, 7));
    await h.settle();
    assert.equal(h.messages.length, 0);
    h.input.write(line.slice(7) + ping(2) + ping(3).replace('\n', '\r\n'));
    await h.settle();
    assert.deepEqual(h.messages.map((m) => (m as { id: number }).id), [1, 2, 3]);
    assert.deepEqual(h.replies(), []);
  });

  it('answers a line that is not JSON with a parse error (id null), logs it, and reads on', async () => {
    const h = harness();
    await h.t.start();
    h.input.write(Buffer.concat([Buffer.from('{nope\n'), Buffer.from([0, 1, 0xff, 0x0a]), Buffer.from(ping(4))]));
    await h.settle();
    // The SDK's transport dropped such lines without a word.
    assert.deepEqual(h.replies().map((r) => [r.id, r.error.code]), [[null, -32700], [null, -32700]]);
    assert.equal(h.logs.length, 2);
    assert.doesNotMatch(h.logs.join(''), /\u0000/, 'the bytes of the line are not echoed to the log');
    assert.deepEqual(h.messages.map((m) => (m as { id: number }).id), [4]);
  });

  it('answers JSON that is not JSON-RPC with invalid request, to its id when it has one', async () => {
    const h = harness();
    await h.t.start();
    h.input.write('[1,2]\n{"id":7,"method":5}\n{"jsonrpc":"2.0","id":"x"}\n\n   \n');
    await h.settle();
    assert.deepEqual(h.replies().map((r) => [r.id, r.error.code]), [[null, -32600], [7, -32600], ['x', -32600]]);
    assert.equal(h.messages.length, 0, 'blank lines are not messages');
  });

  it('refuses a line over the limit by its id, keeps nothing of it, and serves the next line (the SDK transport closed the session)', async () => {
    const h = harness(1000);
    await h.t.start();
    const big = JSON.stringify({ method: 'tools/call', params: { name: 'working_memory_note', arguments: { id: 99, note: 'x'.repeat(5000) } }, jsonrpc: '2.0', id: 12 });
    for (let i = 0; i < big.length; i += 300) h.input.write(big.slice(i, i + 300));
    h.input.write('\n' + ping(13));
    await h.settle();
    const [refusal] = h.replies();
    assert.equal(refusal.id, 12, 'the outer id, not the one inside the arguments');
    assert.equal(refusal.error.code, -32600);
    assert.match(refusal.error.message, /over the 1000-byte limit/);
    assert.deepEqual(h.messages.map((m) => (m as { id: number }).id), [13]);
    assert.match(h.logs[0]!, /over the 1000-byte limit/);
  });

  it('reads the request id only where it belongs to the outer object', () => {
    assert.equal(idAtEnds('{"jsonrpc":"2.0","id":5,"method":"x","params":{"note":"aaa', 'aaa"}}'), 5);
    assert.equal(idAtEnds('{"id":"abc","method":', '"}}'), 'abc');
    assert.equal(idAtEnds('{"method":"tools/call","params":{"arguments":{"id":"m1","note":"', 'zz"}},"jsonrpc":"2.0","id":8}'), 8);
    assert.equal(idAtEnds('{"method":"tools/call","params":{"arguments":{"id":"m1","note":"', 'zz","id":3}}}'), null);
    assert.equal(idAtEnds('garbage', 'garbage'), null);
  });
});
