/**
 * A decoding worker thread (decode-pool.ts): decodes one file at a time with the in-process decoders
 * (WAV, and the WebAssembly FLAC, Vorbis, Opus and MP3 decoders) and writes it as the WAV the blob store
 * keeps, so the server's event loop neither decodes nor holds the samples. A file only ffmpeg reads is
 * answered `ffmpeg`: the caller batches those into one ffmpeg run.
 */
import { writeFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { DecodeReply, DecodeRequest } from './decode-protocol.js';
import { decodeAudioFileInProcess, FileDecodeError } from './file-decode.js';
import { blockingIo } from './file-io.js';
import { wavAroundPcm } from './wav.js';

const port = parentPort;
if (!port) throw new Error('decode-worker.js runs as a worker thread');

const running = new Map<number, AbortController>();

async function decode(req: Extract<DecodeRequest, { type: 'decode' }>, signal: AbortSignal): Promise<DecodeReply> {
  const { id } = req;
  try {
    // This thread exists to wait for its files: reads and the write block it, not libuv's threads.
    const decoded = await decodeAudioFileInProcess(req.path, req.limits, signal, blockingIo);
    if (!decoded) return { id, type: 'ffmpeg' };
    const wav = wavAroundPcm(decoded.pcm, decoded.sampleRate);
    signal.throwIfAborted();
    writeFileSync(req.out, wav, { mode: 0o600 });
    return { id, type: 'decoded', sampleRate: decoded.sampleRate, frames: decoded.pcm.length, bytes: wav.byteLength };
  } catch (err) {
    if (err instanceof FileDecodeError) return { id, type: 'refused', reason: err.reason, message: err.message };
    return { id, type: 'failed', message: err instanceof Error ? err.message : String(err) };
  }
}

port.on('message', (req: DecodeRequest) => {
  if (req.type === 'cancel') return void running.get(req.id)?.abort();
  const controller = new AbortController();
  running.set(req.id, controller);
  void decode(req, controller.signal).then((reply) => {
    running.delete(req.id);
    port.postMessage(reply);
  });
});
