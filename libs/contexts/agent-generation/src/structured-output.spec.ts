import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import type { ChatResult } from '#model-providers';
import { compileSchema } from './json-schema.js';
import {
  checkOutput,
  generateStructuredOutput,
  repairInstruction,
  type AskModel,
} from './structured-output.js';

const validate = compileSchema({
  type: 'object',
  properties: { city: { type: 'string' }, population: { type: 'integer', minimum: 0 } },
  required: ['city', 'population'],
});

const answer = (content: string | null, outputTokens = 5): ChatResult => ({
  message: { role: 'assistant', content, refusal: null },
  finishReason: 'stop',
  usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens },
});

/** A model that answers from a script and remembers what it was sent. */
const scripted = (...replies: (string | null)[]) => {
  const followUps: (readonly ChatCompletionMessageParam[])[] = [];
  const ask: AskModel = (followUp) => {
    followUps.push(followUp);
    const reply = replies[followUps.length - 1];
    if (reply === undefined) throw new Error('the model was asked more often than scripted');
    return Promise.resolve(answer(reply, followUps.length * 5));
  };
  return { ask, followUps };
};

describe('generateStructuredOutput', () => {
  it('returns a valid first answer as it is, asking once', async () => {
    const model = scripted('{"city":"Bern","population":134000}');
    await expect(generateStructuredOutput(model.ask, validate)).resolves.toEqual({
      object: { city: 'Bern', population: 134000 },
      finishReason: 'stop',
      usage: { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5 },
      repaired: false,
    });
    expect(model.followUps).toEqual([[]]);
  });

  it('repairs once: the model sees its own output and the validation errors, usage covers both calls', async () => {
    const bad = '{"city":"Bern","population":"many"}';
    const model = scripted(bad, '{"city":"Bern","population":134000}');
    const output = await generateStructuredOutput(model.ask, validate);
    expect(output).toMatchObject({ object: { city: 'Bern', population: 134000 }, repaired: true });
    expect(output.usage).toEqual({ inputTokens: 20, cachedInputTokens: 4, outputTokens: 15 });
    expect(model.followUps).toHaveLength(2);
    const [assistant, instruction] = model.followUps[1]!;
    expect(assistant).toEqual({ role: 'assistant', content: bad });
    expect(instruction).toMatchObject({
      role: 'user',
      content: expect.stringContaining('/population must be integer'),
    });
    expect(instruction!.content).toContain('corrected JSON only');
  });

  it('fails with 422 object_validation_failed after exactly one repair attempt', async () => {
    const model = scripted('{"city":"Bern"}', '{"population":-1}');
    const failure = generateStructuredOutput(model.ask, validate);
    await expect(failure).rejects.toMatchObject({
      kind: 'unprocessable',
      code: 'object_validation_failed',
      message: expect.stringMatching(/must have required property 'city'.*\/population must be >= 0/),
    });
    expect(model.followUps).toHaveLength(2);
  });

  it('treats prose, empty and null answers as invalid and repairs them', async () => {
    for (const first of ['Sure! Here is the JSON you asked for.', '', null]) {
      const model = scripted(first, '{"city":"Basel","population":1}');
      await expect(generateStructuredOutput(model.ask, validate)).resolves.toMatchObject({ repaired: true });
      expect(model.followUps[1]![0]).toEqual({ role: 'assistant', content: first ?? '' });
    }
  });
});

describe('checkOutput', () => {
  it('accepts JSON inside one code fence', () => {
    expect(checkOutput(validate, '```json\n{"city":"Chur","population":37000}\n```')).toEqual({
      valid: true,
      value: { city: 'Chur', population: 37000 },
    });
  });

  it('explains unparsable output', () => {
    const check = checkOutput(validate, '{"city":');
    expect(check).toMatchObject({ valid: false, errors: [expect.stringContaining('not valid JSON')] });
  });
});

describe('repairInstruction', () => {
  it('lists at most five errors', () => {
    const text = repairInstruction(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(text).toContain('- e');
    expect(text).not.toContain('- f');
  });
});
