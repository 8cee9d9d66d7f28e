import { type Logger, pino } from 'pino';
import type { Config } from './config';

export type { Logger };

/** Structured JSON logs on stdout; secrets in headers never reach them. */
export function createLogger(config: Pick<Config, 'logLevel'>): Logger {
  return pino({
    level: config.logLevel,
    base: { service: 'orbita' },
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'],
      censor: '[redacted]',
    },
  });
}
