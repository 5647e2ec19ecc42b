// The offline speech model and its transcriber: a real audio file that carries what was said, and the reader of it.
// Speech is a WAV (RIFF, 8 kHz, 16-bit mono PCM) whose sound is the text's UTF-8 bytes in tones: a marker, then each
// byte as two 20 ms tones, one of 16 frequencies per half-byte (600 Hz + 150 Hz × value: on the 50 Hz bins of a
// 160-sample window, so the tones do not bleed into each other). The transcriber finds the strongest of the 16
// frequencies in each window (Goertzel) and reads the bytes back: transcribe(speak(text)) = text. It is a stand-in,
// not a voice; audio it did not make has no marker and reads as nothing.
import { ValidationError } from '#kernel/thread-kit';
import type {
  SpeechRequest,
  SpeechResult,
  TranscriptionRequest,
  TranscriptionResult,
} from '../provider.port.js';

export const SAMPLE_RATE = 8_000;
const SYMBOL_SAMPLES = 160;
const BASE_HZ = 600;
const STEP_HZ = 150;
const AMPLITUDE = 12_000;
/** "AP" then a version byte: audio the offline model made starts with it. */
const MARKER = [0x41, 0x50, 0x01];
/** Longest text the offline model speaks, in UTF-8 bytes. */
export const MAX_SPEECH_BYTES = 4_096;

const frequency = (nibble: number) => BASE_HZ + STEP_HZ * nibble;

/** The text a request speaks: its text (a multi-speaker text names its speakers in it). */
export function offlineSpeech(request: SpeechRequest): SpeechResult {
  const bytes = [...MARKER, ...Buffer.from(request.text, 'utf8')];
  if (bytes.length - MARKER.length > MAX_SPEECH_BYTES)
    throw new ValidationError(
      'speech_too_long',
      `the offline speech model speaks at most ${MAX_SPEECH_BYTES} bytes of text`,
      'text',
    );
  const samples = bytes.length * 2 * SYMBOL_SAMPLES;
  const wav = Buffer.alloc(44 + samples * 2);
  writeHeader(wav, samples);
  let offset = 44;
  for (const byte of bytes)
    for (const nibble of [byte >> 4, byte & 0x0f]) {
      const hz = frequency(nibble);
      for (let i = 0; i < SYMBOL_SAMPLES; i++) {
        wav.writeInt16LE(Math.round(AMPLITUDE * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE)), offset);
        offset += 2;
      }
    }
  return { audio: wav, mimeType: 'audio/wav' };
}

export function offlineTranscription(request: TranscriptionRequest): TranscriptionResult {
  const pcm = pcmOf(request.audio);
  const symbols = Math.floor(pcm.length / SYMBOL_SAMPLES);
  const bytes: number[] = [];
  for (let s = 0; s + 1 < symbols; s += 2)
    bytes.push((strongest(pcm, s * SYMBOL_SAMPLES) << 4) | strongest(pcm, (s + 1) * SYMBOL_SAMPLES));
  if (!MARKER.every((byte, i) => bytes[i] === byte)) return { text: '' };
  return { text: Buffer.from(bytes.slice(MARKER.length)).toString('utf8') };
}

function writeHeader(wav: Buffer, samples: number): void {
  wav.write('RIFF', 0, 'ascii');
  wav.writeUInt32LE(36 + samples * 2, 4);
  wav.write('WAVE', 8, 'ascii');
  wav.write('fmt ', 12, 'ascii');
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(SAMPLE_RATE, 24);
  wav.writeUInt32LE(SAMPLE_RATE * 2, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36, 'ascii');
  wav.writeUInt32LE(samples * 2, 40);
}

/** The 16-bit mono PCM samples of a WAV at the offline rate; a 400 for anything else. */
function pcmOf(audio: Uint8Array): Int16Array {
  const wav = Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength);
  const refuse = (why: string) =>
    new ValidationError('unsupported_audio', `the offline transcriber reads ${why}`, 'audio');
  if (wav.length < 12 || wav.toString('ascii', 0, 4) !== 'RIFF' || wav.toString('ascii', 8, 12) !== 'WAVE')
    throw refuse('WAV (RIFF) audio only');
  let offset = 12;
  let format: { channels: number; rate: number; bits: number } | null = null;
  while (offset + 8 <= wav.length) {
    const id = wav.toString('ascii', offset, offset + 4);
    const size = wav.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ' && body + 16 <= wav.length)
      format = {
        channels: wav.readUInt16LE(body + 2),
        rate: wav.readUInt32LE(body + 4),
        bits: wav.readUInt16LE(body + 14),
      };
    if (id === 'data') {
      if (!format || format.channels !== 1 || format.bits !== 16 || format.rate !== SAMPLE_RATE)
        throw refuse(`${SAMPLE_RATE} Hz 16-bit mono PCM`);
      const end = Math.min(wav.length, body + size);
      const samples = new Int16Array(Math.floor((end - body) / 2));
      for (let i = 0; i < samples.length; i++) samples[i] = wav.readInt16LE(body + i * 2);
      return samples;
    }
    offset = body + size + (size % 2);
  }
  throw refuse('WAV audio with a data chunk');
}

/** The half-byte whose frequency is strongest in the window at `start` (Goertzel). */
function strongest(pcm: Int16Array, start: number): number {
  let best = 0;
  let bestPower = -1;
  for (let nibble = 0; nibble < 16; nibble++) {
    const coefficient = 2 * Math.cos((2 * Math.PI * frequency(nibble)) / SAMPLE_RATE);
    let previous = 0;
    let beforePrevious = 0;
    for (let i = 0; i < SYMBOL_SAMPLES; i++) {
      const current = pcm[start + i]! + coefficient * previous - beforePrevious;
      beforePrevious = previous;
      previous = current;
    }
    const power =
      previous * previous + beforePrevious * beforePrevious - coefficient * previous * beforePrevious;
    if (power > bestPower) {
      bestPower = power;
      best = nibble;
    }
  }
  return best;
}
