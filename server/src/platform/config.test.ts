import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config';

describe('configuration', () => {
  it('starts with defaults on an empty environment: port 3000, embedded database under ./data', () => {
    expect(loadConfig({})).toMatchObject({
      port: 3000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      dataDir: './data',
      logLevel: 'info',
      bodyLimit: '1mb',
      validateResponses: true,
    });
  });

  it('treats an empty variable as unset', () => {
    expect(loadConfig({ DATABASE_URL: '', PORT: '' })).toMatchObject({ databaseUrl: undefined, port: 3000 });
  });

  it('names every bad variable and its value', () => {
    const attempt = () => loadConfig({ PORT: '70000', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'loud' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/PORT: PORT must be between 0 and 65535 \(got "70000"\)/);
    expect(attempt).toThrow(/DATABASE_URL: .*postgres/);
    expect(attempt).toThrow(/LOG_LEVEL/);
  });

  it('shares Redis between server instances only when REDIS_URL names one', () => {
    expect(loadConfig({})).toMatchObject({ redisUrl: undefined, redisPrefix: 'orbita' });
    expect(loadConfig({ REDIS_URL: 'redis://cache:6379/2', REDIS_PREFIX: 'orbita-eu' })).toMatchObject({
      redisUrl: 'redis://cache:6379/2',
      redisPrefix: 'orbita-eu',
    });
    expect(() => loadConfig({ REDIS_URL: 'cache:6379' })).toThrow(
      /REDIS_URL: REDIS_URL must be a redis:\/\/ or rediss:\/\/ URL/,
    );
    expect(() => loadConfig({ REDIS_PREFIX: 'two words' })).toThrow(/REDIS_PREFIX/);
  });

  it('stops checking responses against the contract in production only', () => {
    expect(loadConfig({ NODE_ENV: 'production' }).validateResponses).toBe(false);
  });
});
