import { parseDurationSeconds } from '@shared/duration';
import { z } from 'zod';

const Duration = (name: string) =>
  z.string().transform((value, context) => {
    const seconds = parseDurationSeconds(value);
    if (seconds === undefined) {
      context.addIssue({ code: 'custom', message: `${name} must be seconds (900) or a duration like 15m, 12h, 30d` });
      return z.NEVER;
    }
    return seconds;
  });

const LogLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

/** Every environment variable the server reads, with its default. README.md lists the same. */
const EnvSchema = z.object({
  PORT: z.coerce
    .number({ error: 'PORT must be a port number' })
    .int('PORT must be a whole number')
    .min(0, 'PORT must be between 0 and 65535')
    .max(65535, 'PORT must be between 0 and 65535')
    .default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'DATABASE_URL must be a postgres:// or postgresql:// URL')
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(1000).default(10),
  DATA_DIR: z.string().min(1).default('./data'),
  LOG_LEVEL: LogLevel.default('info'),
  BODY_LIMIT: z
    .string()
    .regex(/^\d+(b|kb|mb)$/i, 'BODY_LIMIT must look like 1mb, 512kb or 1048576b')
    .default('1mb'),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(10_000),
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  JWT_SECRET: z.string().min(32, 'JWT_SECRET must be at least 32 characters').optional(),
  JWT_ACCESS_EXPIRES: Duration('JWT_ACCESS_EXPIRES').default(900),
  REFRESH_EXPIRES: Duration('REFRESH_EXPIRES').default(30 * 86_400),
  REFRESH_GRACE_SECONDS: z.coerce.number().int().min(0).max(3600).default(30),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'SMTP_URL must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().min(3).default('Orbita <no-reply@orbita.localhost>'),
  SYNC_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1000),
  JOBS_POLL_MS: z.coerce.number().int().min(20).max(60_000).default(1000),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'REDIS_URL must be a redis:// or rediss:// URL')
    .optional(),
  REDIS_PREFIX: z
    .string()
    .regex(/^[\w.:-]{1,64}$/, 'REDIS_PREFIX must be 1–64 letters, digits, ".", ":", "_" or "-"')
    .default('orbita'),
  CORS_ORIGINS: z
    .string()
    .default('app://orbita')
    .transform((value) =>
      value
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().regex(/^[a-z][a-z0-9+.-]*:\/\/[^/\s]+$/, 'an origin such as app://orbita'))),
  PUBLIC_URL: z.url('PUBLIC_URL must be a URL like https://orbita.example.org').optional(),
  BILLING_PROVIDER: z.enum(['mock', 'yookassa'], { error: 'BILLING_PROVIDER must be mock or yookassa' }).optional(),
  YOOKASSA_SHOP_ID: z.string().min(1).optional(),
  YOOKASSA_SECRET_KEY: z.string().min(1).optional(),
  YOOKASSA_API_URL: z.url('YOOKASSA_API_URL must be a URL').default('https://api.yookassa.ru/v3'),
  YOOKASSA_NOTIFICATION_IPS: z
    .string()
    .optional()
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((range) => range.trim())
        .filter(Boolean),
    ),
});

export interface Config {
  port: number;
  host: string;
  /** PostgreSQL server; when absent the embedded PGlite engine is used under `dataDir`. */
  databaseUrl: string | undefined;
  databasePoolMax: number;
  dataDir: string;
  logLevel: z.infer<typeof LogLevel>;
  bodyLimit: string;
  shutdownTimeoutMs: number;
  nodeEnv: 'development' | 'production' | 'test';
  /** Check every response against its declared schema (on outside production). */
  validateResponses: boolean;
  /** HS256 key of access tokens; when absent one is generated once and kept in the database. */
  jwtSecret: string | undefined;
  accessTokenSeconds: number;
  refreshTokenSeconds: number;
  /** How long the previous refresh token of a family still rotates the active session (two tabs). */
  refreshGraceSeconds: number;
  /** SMTP server for e-mail; when absent mail is written to the outbox under DATA_DIR/outbox. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** Where users open the product; links in e-mails start with it. */
  publicUrl: string;
  /** How often the sync stream looks for committed changes to send to connected replicas. */
  syncPollMs: number;
  /** How often the job worker looks for due jobs when no job enqueued here woke it. */
  jobsPollMs: number;
  /**
   * Redis shared by the server instances: Socket.IO's adapter fans events out across them, and a
   * change one instance answered wakes the others' sync streams at once. Absent: one instance's
   * writes reach the others' replicas with their next poll.
   */
  redisUrl: string | undefined;
  /** Prefix of this deployment's Redis channels (instances of one deployment share it). */
  redisPrefix: string;
  /**
   * Other origins whose pages may call the API (the desktop app's `app://orbita`). Sessions travel
   * as bearer tokens, never cookies, so no credentials are allowed cross-origin.
   */
  corsOrigins: string[];
  /**
   * The payment provider of top-ups: `mock` by default outside production; in production none
   * unless set (top-ups are refused), so no installation hands out free credit by accident.
   */
  billingProvider: 'mock' | 'yookassa' | undefined;
  /** YooKassa's shop and key, its API's address and the ranges notifications may come from (empty: any). */
  yookassa: { shopId: string | undefined; secretKey: string | undefined; apiUrl: string; notificationIps: string[] };
}

export class ConfigError extends Error {}

/** Reads the configuration from the environment; a bad value stops start-up with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // An empty variable means "not set", as in most shells' `VAR= cmd`.
  const present = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== ''));
  const parsed = EnvSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map(
      (issue) => `  ${issue.path.join('.')}: ${issue.message} (got ${JSON.stringify(env[String(issue.path[0])])})`,
    );
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    databasePoolMax: e.DATABASE_POOL_MAX,
    dataDir: e.DATA_DIR,
    logLevel: e.LOG_LEVEL,
    bodyLimit: e.BODY_LIMIT,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    nodeEnv: e.NODE_ENV,
    validateResponses: e.NODE_ENV !== 'production',
    jwtSecret: e.JWT_SECRET,
    accessTokenSeconds: e.JWT_ACCESS_EXPIRES,
    refreshTokenSeconds: e.REFRESH_EXPIRES,
    refreshGraceSeconds: e.REFRESH_GRACE_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    syncPollMs: e.SYNC_POLL_MS,
    jobsPollMs: e.JOBS_POLL_MS,
    redisUrl: e.REDIS_URL,
    redisPrefix: e.REDIS_PREFIX,
    corsOrigins: e.CORS_ORIGINS,
    billingProvider: e.BILLING_PROVIDER ?? (e.NODE_ENV === 'production' ? undefined : 'mock'),
    yookassa: {
      shopId: e.YOOKASSA_SHOP_ID,
      secretKey: e.YOOKASSA_SECRET_KEY,
      apiUrl: e.YOOKASSA_API_URL.replace(/\/+$/, ''),
      notificationIps: e.YOOKASSA_NOTIFICATION_IPS,
    },
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT || 3000}`).replace(/\/+$/, ''),
  };
}
