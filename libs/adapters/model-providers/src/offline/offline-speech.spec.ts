import { offlineSpeech, offlineTranscription, SAMPLE_RATE } from './offline-speech.js';

describe('the offline speech model and transcriber', () => {
  it('speaks a real WAV that the transcriber reads back (a round trip), Unicode included', () => {
    const text = 'Guten Tag, Grüße aus dem Büro — 42 ✓';
    const { audio, mimeType } = offlineSpeech({ text, voiceName: 'any' });
    expect(mimeType).toBe('audio/wav');
    const wav = Buffer.from(audio);
    expect(wav.toString('ascii', 0, 4)).toBe('RIFF');
    expect(wav.toString('ascii', 8, 12)).toBe('WAVE');
    expect(wav.readUInt32LE(24)).toBe(SAMPLE_RATE);
    expect(wav.readUInt32LE(4)).toBe(wav.length - 8);
    expect(offlineTranscription({ audio, mimeType }).text).toBe(text);
  });

  it('survives noise on the samples, and reads audio it did not make as nothing', () => {
    const { audio } = offlineSpeech({ text: 'hello there' });
    const noisy = Buffer.from(audio);
    for (let offset = 44; offset < noisy.length; offset += 2)
      noisy.writeInt16LE(
        Math.max(-32768, Math.min(32767, noisy.readInt16LE(offset) + ((offset * 7919) % 4001) - 2000)),
        offset,
      );
    expect(offlineTranscription({ audio: noisy, mimeType: 'audio/wav' }).text).toBe('hello there');
    const silence = Buffer.from(audio).fill(0, 44);
    expect(offlineTranscription({ audio: silence, mimeType: 'audio/wav' }).text).toBe('');
  });

  it('refuses what is not WAV, and text over its bound', () => {
    expect(() =>
      offlineTranscription({ audio: Buffer.from('ID3 not a wav'), mimeType: 'audio/mpeg' }),
    ).toThrow(expect.objectContaining({ code: 'unsupported_audio' }));
    expect(() => offlineSpeech({ text: 'x'.repeat(5000) })).toThrow(
      expect.objectContaining({ code: 'speech_too_long' }),
    );
  });
});
