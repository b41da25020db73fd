// Every environment variable the service reads, parsed once. A bad value stops start-up with one line
// naming the variable and what is wrong (see loadConfig's caller in main.ts and cli.ts).
import path from 'node:path';
import { z } from 'zod';
import { START_EXIT } from './core/db/start-failure.ts';
import type { WebhookSettings } from './core/webhooks/settings.ts';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const postgresUrl = z.string().refine((v) => {
  try {
    return ['postgres:', 'postgresql:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be a postgres:// or postgresql:// URL');

const redisUrl = z.string().refine((v) => {
  try {
    return ['redis:', 'rediss:'].includes(new URL(v).protocol);
  } catch {
    return false;
  }
}, 'must be a redis:// or rediss:// URL');

const httpUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.search === '' && u.hash === '';
  } catch {
    return false;
  }
}, 'must be an http(s) URL without query or fragment');

const schema = z.object({
  PORT: z.coerce.number().int('must be an integer').min(0, 'must be 0 to 65535').max(65535, 'must be 0 to 65535').default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  // Unset: no listener of the facade's own (it is always under /trakt on PORT).
  TRAKT_API_PORT: z.coerce.number().int('must be an integer').min(0, 'must be 0 to 65535').max(65535, 'must be 0 to 65535').optional(),
  BASE_URL: httpUrl.optional(),
  DATABASE_URL: postgresUrl.optional(),
  DATABASE_CREATE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  DATA_DIR: z.string().min(1, 'must not be empty').default('./.data'),
  REDIS_URL: redisUrl.optional(),
  LOG_LEVEL: z.enum(LOG_LEVELS, { error: `must be one of ${LOG_LEVELS.join(', ')}` }).default('info'),
  IMAGE_BASE_URL: httpUrl.default('https://image.tmdb.org/t/p'),
  DEMO_DATA: z.enum(['auto', 'off'], { error: 'must be auto or off' }).default('auto'),
  TRUST_PROXY: z
    .string()
    .refine((v) => v.split(',').every((p) => /^(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)$/.test(p.trim())), 'must be a comma-separated list of proxy addresses, subnets (CIDR) or loopback, linklocal, uniquelocal')
    .optional(),
  RATE_LIMITS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  REDIS_KEY_PREFIX: z.string().regex(/^[A-Za-z0-9_:-]{1,64}$/, 'must be 1 to 64 of A-Z a-z 0-9 _ : -').default('mts'),
  CATALOG_CACHE_SECONDS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(86_400, 'must be at most 86400').default(60),
  MOVIE_DB_API_KEY: z.string().min(1).optional(),
  MOVIE_DB_API_URL: httpUrl.default('https://api.themoviedb.org'),
  MOVIE_DB_REQUESTS_PER_SECOND: z.coerce.number().int('must be an integer').min(1, 'must be 1 or more').max(1_000, 'must be at most 1000').default(40),
  CATALOG_FETCH_WAIT_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(30_000, 'must be at most 30000').default(3_000),
  CATALOG_REFRESH_INTERVAL_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').default(10 * 60_000),
  CATALOG_REFRESH_BATCH: z.coerce.number().int('must be an integer').min(1, 'must be 1 or more').max(10_000, 'must be at most 10000').default(200),
  TROPHY_INTERVAL_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(3_600_000, 'must be at most 3600000').default(60_000),
  METRICS_TOKEN: z.string().regex(/^[\x21-\x7e]{16,256}$/, 'must be 16 to 256 printable characters without spaces').optional(),
  HEADERS_TIMEOUT_MS: z.coerce.number().int('must be an integer').min(1_000, 'must be 1000 to 30000').max(30_000, 'must be 1000 to 30000').default(15_000),
  MAX_CONNECTIONS: z.coerce.number().int('must be an integer').min(1, 'must be 1 to 1000000').max(1_000_000, 'must be 1 to 1000000').default(10_000),
  DATA_DIR_MIN_FREE_MB: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(1_048_576, 'must be at most 1048576').default(64),
  SHUTDOWN_GRACE_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(600_000, 'must be at most 600000').default(10_000),
  JOB_QUEUE: z.enum(['auto', 'in-process', 'pg-boss'], { error: 'must be auto, in-process or pg-boss' }).default('auto'),
  DATABASE_POOL_SIZE: z.coerce.number().int('must be an integer').min(1, 'must be 1 to 100').max(100, 'must be 1 to 100').default(10),
  DATABASE_PREPARED_STATEMENTS: z.enum(['on', 'off'], { error: 'must be on or off' }).default('on'),
  SIGNUPS: z.enum(['open', 'closed'], { error: 'must be open or closed' }).default('open'),
  APP_REGISTRATION: z.enum(['open', 'closed'], { error: 'must be open or closed' }).default('open'),
  IMPORT_INTERVAL_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(600_000, 'must be at most 600000').default(4_000),
  IMPORT_MAX_BYTES: z.coerce.number().int('must be an integer').min(1024, 'must be at least 1024').max(1024 ** 3, 'must be at most 1073741824').default(64 * 1024 * 1024),
  WEBHOOK_INTERVAL_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(600_000, 'must be at most 600000').default(4_000),
  WEBHOOK_ALLOW_PRIVATE: z.enum(['true', 'false'], { error: 'must be true or false' }).default('false'),
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int('must be an integer').min(100, 'must be 100 to 60000').max(60_000, 'must be 100 to 60000').default(10_000),
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int('must be an integer').min(1, 'must be 1 or more').max(3_600_000, 'must be at most 3600000').default(5_000),
  WEBHOOK_RETRY_MAX_MS: z.coerce.number().int('must be an integer').min(1, 'must be 1 or more').max(86_400_000, 'must be at most 86400000').default(6 * 3_600_000),
  WEBHOOK_PAUSE_AFTER_FAILURES: z.coerce.number().int('must be an integer').min(1, 'must be 1 or more').max(1_000, 'must be at most 1000').default(10),
  WEBHOOK_PAUSE_AFTER_MS: z.coerce.number().int('must be an integer').min(0, 'must be 0 or more').max(30 * 86_400_000, 'must be at most 2592000000').default(86_400_000),
});

export type Config = {
  port: number;
  host: string;
  /**
   * A second listener serving the Trakt-compatible facade at its root, on HOST (TRAKT_API_PORT; unset:
   * none). It goes through the same application as PORT (src/trakt/listener.ts).
   */
  traktApiPort: number | undefined;
  /** Public origin of the service, no trailing slash. */
  baseUrl: string;
  /** Unset means embedded mode (PGlite in dataDir). */
  databaseUrl: string | undefined;
  /**
   * Whether start-up creates the database DATABASE_URL names when it does not exist (DATABASE_CREATE);
   * otherwise a missing one stops start-up with the command that creates it (core/db/reach.ts).
   */
  databaseCreate: boolean;
  /** Hot reads as named statements (DATABASE_PREPARED_STATEMENTS; off behind a pooler that cannot keep them). */
  preparedStatements: boolean;
  /** Connections this instance keeps to PostgreSQL (DATABASE_POOL_SIZE; embedded mode always uses one). */
  poolSize: number;
  dataDir: string;
  /**
   * Embedded mode: below this much free space on the data directory's filesystem the instance is not
   * ready (DATA_DIR_MIN_FREE_MB; 0: not checked). The embedded database stops for good when its WAL
   * cannot grow, so readiness turns before the last megabytes go.
   */
  dataDirMinFreeBytes: number;
  /**
   * How long a request's line and headers may take from its first byte (HEADERS_TIMEOUT_MS); a client
   * still sending them then is answered 408 and cut, within the server's one-second check (server.ts).
   */
  headersTimeoutMs: number;
  /** Connections this instance holds at most (MAX_CONNECTIONS); past it a new one is closed at once. */
  maxConnections: number;
  /** Unset means in-memory rate limits and event bus. */
  redisUrl: string | undefined;
  logLevel: (typeof LOG_LEVELS)[number];
  imageBaseUrl: string;
  demoData: 'auto' | 'off';
  /** Proxies whose X-Forwarded-For is believed (Express `trust proxy` list); none by default. */
  trustProxy: string[];
  /** Off only for tests and benchmarks of other things: the limits are the contract's (core/limits/table.ts, the README's table). */
  rateLimits: boolean;
  redisKeyPrefix: string;
  /** How long public catalog answers are cached in memory (0: not cached). */
  catalogCacheSeconds: number;
  movieDbApiKey: string | undefined;
  movieDbApiUrl: string;
  /** The metadata provider's rate limit, shared by every instance (requests a second). */
  movieDbRequestsPerSecond: number;
  /** How long a request waits for a missing title to be fetched before it answers without it. */
  catalogFetchWaitMs: number;
  /** How often the refresh of followed, watched and listed titles runs (ms); 0: not in this instance. */
  catalogRefreshIntervalMs: number;
  /** Titles one refresh run fetches at most. */
  catalogRefreshBatch: number;
  /**
   * Where background jobs run: pg-boss on DATABASE_URL (each tick once across the fleet) or timers in
   * this process. `auto` (JOB_QUEUE): pg-boss in services mode, in-process in embedded mode.
   */
  jobQueue: 'in-process' | 'pg-boss';
  /** How often the trophy job awards what recent writes earned (ms); 0 turns the job off in this instance. */
  trophyIntervalMs: number;
  /** Whether anyone may make an account at /account/sign-up (SIGNUPS); closed: only `user:create` makes them. */
  signups: 'open' | 'closed';
  /** Bearer token GET /metrics requires; unset: /metrics is off (404). */
  metricsToken: string | undefined;
  /** Whether signed-in users may register their own (never official) apps on /account/apps (APP_REGISTRATION). */
  appRegistration: boolean;
  /**
   * How often the import job takes queued imports (ms; each tick writes for up to half of it, then gives
   * the run back for the next); 0 turns the job off in this instance (IMPORT_INTERVAL_MS).
   */
  importIntervalMs: number;
  /** The largest file /account/import accepts (IMPORT_MAX_BYTES). */
  importMaxBytes: number;
  /** On SIGTERM: how long requests in flight may take to finish before their connections are cut (ms). */
  shutdownGraceMs: number;
  /** Outbound webhooks (WEBHOOK_*): the deliverer's interval, private destinations, timeout, backoff and pause. */
  webhooks: WebhookSettings;
};

class ConfigError extends Error {}

/** For process entries (server, CLI): a bad value prints its one line and exits 1 (START_EXIT.configuration). */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(START_EXIT.configuration);
    }
    throw err;
  }
}

/** Parses the environment; throws ConfigError whose message is the one line to print. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  // Empty strings count as unset, as a shell `VAR=` usually means.
  const raw = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    throw new ConfigError(`invalid configuration: ${name} ${issue.message} (got ${JSON.stringify(raw[name])})`);
  }
  const c = parsed.data;
  // pg-boss needs LISTEN-capable sessions of its own: the embedded database's socket serves one at a time.
  if (c.JOB_QUEUE === 'pg-boss' && !c.DATABASE_URL) throw new ConfigError('invalid configuration: JOB_QUEUE pg-boss needs DATABASE_URL (embedded mode runs jobs in-process)');
  // Both on one port would be one listener failing to claim what the other holds, blamed on "another process".
  if (c.TRAKT_API_PORT !== undefined && c.TRAKT_API_PORT !== 0 && c.TRAKT_API_PORT === c.PORT) throw new ConfigError(`invalid configuration: TRAKT_API_PORT must differ from PORT (both ${c.PORT})`);
  return {
    port: c.PORT,
    host: c.HOST,
    traktApiPort: c.TRAKT_API_PORT,
    baseUrl: (c.BASE_URL ?? `http://localhost:${c.PORT}`).replace(/\/+$/, ''),
    databaseUrl: c.DATABASE_URL,
    databaseCreate: c.DATABASE_CREATE === 'true',
    preparedStatements: c.DATABASE_PREPARED_STATEMENTS === 'on',
    poolSize: c.DATABASE_POOL_SIZE,
    dataDir: path.resolve(c.DATA_DIR),
    dataDirMinFreeBytes: c.DATA_DIR_MIN_FREE_MB * 1024 * 1024,
    headersTimeoutMs: c.HEADERS_TIMEOUT_MS,
    maxConnections: c.MAX_CONNECTIONS,
    redisUrl: c.REDIS_URL,
    logLevel: c.LOG_LEVEL,
    imageBaseUrl: c.IMAGE_BASE_URL.replace(/\/+$/, ''),
    demoData: c.DEMO_DATA,
    catalogCacheSeconds: c.CATALOG_CACHE_SECONDS,
    trustProxy: c.TRUST_PROXY ? c.TRUST_PROXY.split(',').map((p) => p.trim()) : [],
    rateLimits: c.RATE_LIMITS === 'on',
    redisKeyPrefix: c.REDIS_KEY_PREFIX,
    metricsToken: c.METRICS_TOKEN,
    signups: c.SIGNUPS,
    shutdownGraceMs: c.SHUTDOWN_GRACE_MS,
    appRegistration: c.APP_REGISTRATION === 'open',
    trophyIntervalMs: c.TROPHY_INTERVAL_MS,
    importIntervalMs: c.IMPORT_INTERVAL_MS,
    importMaxBytes: c.IMPORT_MAX_BYTES,
    jobQueue: c.JOB_QUEUE === 'auto' ? (c.DATABASE_URL ? 'pg-boss' : 'in-process') : c.JOB_QUEUE,
    movieDbApiKey: c.MOVIE_DB_API_KEY,
    movieDbApiUrl: c.MOVIE_DB_API_URL.replace(/\/+$/, ''),
    movieDbRequestsPerSecond: c.MOVIE_DB_REQUESTS_PER_SECOND,
    catalogFetchWaitMs: c.CATALOG_FETCH_WAIT_MS,
    catalogRefreshIntervalMs: c.CATALOG_REFRESH_INTERVAL_MS,
    catalogRefreshBatch: c.CATALOG_REFRESH_BATCH,
    webhooks: {
      intervalMs: c.WEBHOOK_INTERVAL_MS,
      allowPrivate: c.WEBHOOK_ALLOW_PRIVATE === 'true',
      timeoutMs: c.WEBHOOK_TIMEOUT_MS,
      retryBaseMs: c.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: c.WEBHOOK_RETRY_MAX_MS,
      pauseAfterFailures: c.WEBHOOK_PAUSE_AFTER_FAILURES,
      pauseAfterMs: c.WEBHOOK_PAUSE_AFTER_MS,
    },
  };
}
