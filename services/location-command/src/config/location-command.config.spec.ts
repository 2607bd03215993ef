import { ConfigError } from '@lx/platform';
import { loadLocationCommandConfig } from './location-command.config';

const required = { DATABASE_URL: 'postgresql://postgres@127.0.0.1:55432/lx', KAFKA_BROKERS: '127.0.0.1:19092' };

describe('location-command configuration: the watermark fence', () => {
  it('given nothing, when loaded, then the fence waits 10 s for writes in flight and 30 s for the relay', () => {
    expect(loadLocationCommandConfig(required).watermark).toEqual({ lockTimeoutMs: 10_000, publishTimeoutMs: 30_000 });
  });

  it('given both timeouts, when loaded, then each is taken', () => {
    const env = { ...required, WATERMARK_LOCK_TIMEOUT_MS: '250', WATERMARK_PUBLISH_TIMEOUT_MS: '60000' };
    expect(loadLocationCommandConfig(env).watermark).toEqual({ lockTimeoutMs: 250, publishTimeoutMs: 60_000 });
  });

  it.each([
    ['WATERMARK_LOCK_TIMEOUT_MS', '0'],
    ['WATERMARK_PUBLISH_TIMEOUT_MS', '600001'],
    ['WATERMARK_PUBLISH_TIMEOUT_MS', 'soon'],
  ])('given %s=%s, when loaded, then the configuration is refused naming it', (name, value) => {
    expect(() => loadLocationCommandConfig({ ...required, [name]: value })).toThrow(ConfigError);
    expect(() => loadLocationCommandConfig({ ...required, [name]: value })).toThrow(name);
  });
});

describe('location-command configuration: where the relay runs', () => {
  it('given nothing, when loaded, then the relay runs in a worker thread', () => {
    expect(loadLocationCommandConfig(required).relayThread).toBe('worker');
  });

  it('given RELAY_THREAD=main, when loaded, then it runs in the main thread', () => {
    expect(loadLocationCommandConfig({ ...required, RELAY_THREAD: 'main' }).relayThread).toBe('main');
  });

  it('given another RELAY_THREAD, when loaded, then the configuration is refused naming it', () => {
    expect(() => loadLocationCommandConfig({ ...required, RELAY_THREAD: 'both' })).toThrow('RELAY_THREAD');
  });
});
