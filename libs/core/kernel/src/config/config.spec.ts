// Configuration: the message bus (which adapter, where the brokers are), the sandbox, people and mail, the embedded
// search index's memory, and the errors an operator sees.
import { availableParallelism } from 'node:os';
import { ConfigError, loadConfig } from './config.js';

const problems = (env: Record<string, string>): string => {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.message;
    throw error;
  }
  throw new Error('the configuration was accepted');
};

describe('message bus configuration', () => {
  it('is in-process by default, with the default Kafka client id', () => {
    const config = loadConfig({});
    expect(config.messageBus).toBe('in-process');
    expect(config.kafkaBrokers).toEqual([]);
    expect(config.kafkaClientId).toBe('agent-platform');
  });

  it('is Kafka when brokers are given, as a trimmed list', () => {
    const config = loadConfig({
      KAFKA_BROKERS: 'kafka-1:9092, kafka-2:9093,[::1]:9094,',
      KAFKA_CLIENT_ID: 'api-eu',
    });
    expect(config.messageBus).toBe('kafka');
    expect(config.kafkaBrokers).toEqual(['kafka-1:9092', 'kafka-2:9093', '[::1]:9094']);
    expect(config.kafkaClientId).toBe('api-eu');
  });

  it('stays in-process when asked to, even with brokers given', () => {
    expect(loadConfig({ MESSAGE_BUS: 'in-process', KAFKA_BROKERS: '127.0.0.1:9092' }).messageBus).toBe(
      'in-process',
    );
  });

  it('refuses MESSAGE_BUS=kafka without brokers', () => {
    expect(problems({ MESSAGE_BUS: 'kafka' })).toContain('MESSAGE_BUS=kafka needs KAFKA_BROKERS');
  });

  it('names every broker that is not host:port', () => {
    const message = problems({ KAFKA_BROKERS: 'kafka-1:9092,kafka-2,kafka-3:99999,http://kafka-4:9092' });
    expect(message).toContain('KAFKA_BROKERS');
    expect(message).toContain('"kafka-2" is not host:port');
    expect(message).toContain('"kafka-3:99999" is not host:port');
    expect(message).toContain('"http://kafka-4:9092" is not host:port');
    expect(message).not.toContain('"kafka-1:9092"');
  });

  it('refuses a broker list of commas only, and an unknown MESSAGE_BUS', () => {
    expect(problems({ KAFKA_BROKERS: ', ,' })).toContain('KAFKA_BROKERS: lists no broker');
    expect(problems({ MESSAGE_BUS: 'rabbitmq' })).toContain('MESSAGE_BUS');
  });
});

describe('sandbox limits configuration', () => {
  it('bounds runs, kept files and /work inodes by default, and reads the SANDBOX_* overrides', () => {
    expect(loadConfig({}).sandbox).toMatchObject({
      workInodes: 10_000,
      maxConcurrentRuns: availableParallelism(),
      maxRunsPerUser: 2,
      maxFilesPerRun: 20,
      maxFilesPerConversation: 200,
      maxKeptBytesPerConversation: 100 * 1024 * 1024,
    });
    expect(
      loadConfig({
        SANDBOX_MAX_CONCURRENT_RUNS: '3',
        SANDBOX_MAX_RUNS_PER_USER: '1',
        SANDBOX_MAX_FILES_PER_RUN: '5',
        SANDBOX_MAX_INODES: '500',
      }).sandbox,
    ).toMatchObject({ maxConcurrentRuns: 3, maxRunsPerUser: 1, maxFilesPerRun: 5, workInodes: 500 });
    expect(() => loadConfig({ SANDBOX_MAX_CONCURRENT_RUNS: '0' })).toThrow(ConfigError);
  });
});

describe('sign-in and mail configuration', () => {
  it('allows passwords and the embedded outbox by default; reads the providers file path, SMTP and PUBLIC_URL', () => {
    const defaults = loadConfig({});
    expect(defaults.people).toMatchObject({ passwordSignIn: true, publicUrlSet: false });
    expect(defaults.people.providersFile).toBeUndefined();
    expect(defaults.mail.url).toBeUndefined();
    const set = loadConfig({
      AUTH_PASSWORD_SIGN_IN: 'false',
      AUTH_PROVIDERS_FILE: 'providers.yaml',
      MAIL_URL: 'smtps://mailer:pw@mail.example.com:465',
      PUBLIC_URL: 'https://agents.example.com/',
    });
    expect(set.people).toMatchObject({
      passwordSignIn: false,
      publicUrl: 'https://agents.example.com',
      publicUrlSet: true,
    });
    expect(set.people.providersFile).toMatch(/\/providers\.yaml$/);
    expect(set.mail.url).toBe('smtps://mailer:pw@mail.example.com:465');
  });

  it('refuses a MAIL_URL that is not SMTP, without echoing it', () => {
    const message = problems({ MAIL_URL: 'https://user:secret-canary@mail.example.com' });
    expect(message).toContain('MAIL_URL must be smtp://… or smtps://…');
    expect(message).not.toContain('secret-canary');
  });
});

describe('embedded search index memory', () => {
  it('keeps 256 MB of vectors and 256 MB of BM25 postings by default, and reads the overrides in MB', () => {
    expect(loadConfig({}).searchMemory).toEqual({
      vectorCacheBytes: 256 * 1024 * 1024,
      bm25Bytes: 256 * 1024 * 1024,
    });
    expect(loadConfig({ SEARCH_VECTOR_CACHE_MB: '2100', SEARCH_BM25_MEMORY_MB: '0' }).searchMemory).toEqual({
      vectorCacheBytes: 2100 * 1024 * 1024,
      bm25Bytes: 0,
    });
    expect(problems({ SEARCH_VECTOR_CACHE_MB: 'lots' })).toContain('SEARCH_VECTOR_CACHE_MB');
  });
});
