// Starts the service in this process: the port (answering 503 meanwhile) -> database (embedded or
// PostgreSQL) -> migrations -> demo catalog on a first embedded start, or its rest after a kill -> the
// first-party web app's OAuth app -> the application behind the port. serve.ts adds signals; tests call this directly.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from './config.ts';
import { FIRST_PARTY_CLIENT_ID, firstPartyRedirectUri, registerFirstPartyApp } from './core/apps/first-party.ts';
import { createCatalogCache } from './core/catalog/cache.ts';
import { demoCatalogWork } from './core/catalog/import/demo-state.ts';
import { openDatabase, migrate, type Database } from './core/db/orm.ts';
import type { Importers } from './core/import/importers.ts';
import type { Logger } from './core/log.ts';
import { createApp } from './rest/app.ts';
import { traktFacade, type TraktFacadeDeps } from './trakt/index.ts';
import { traktRootListener } from './trakt/listener.ts';
import { Redis } from 'ioredis';
import { startLivingCatalog, type LivingCatalog } from './core/catalog/fetch/start.ts';
import { RateLimits } from './core/limits/limiter.ts';
import { createOAuth, type OAuth } from './oauth/index.ts';
import { webRoutes } from './web/index.ts';
import { createDemoAccount, hasUsers } from './demo.ts';
import { jobsFor, startJobs } from './jobs/index.ts';
import { MemoryEventBus, RedisEventBus, type EventBus } from './core/events/bus.ts';
import { attachEventBus } from './core/events/registry.ts';
import { Drain } from './rest/drain.ts';
import { answerClientError } from './rest/client-error.ts';
import { capConnections } from './rest/connections.ts';
import { feedHoldSeconds } from './core/changes/repository.ts';
import { databaseMetrics, watchFeedLag } from './core/metrics/registry.ts';
import type { SyncCommitHook } from './rpc/trpc.ts';
import { claimPort } from './claim-port.ts';
import { startingApp } from './rest/starting.ts';
import { redactUrl } from './core/db/start-failure.ts';

/** How long start-up waits for Redis to deliver events before it goes on without (ms). */
const REDIS_WAIT_MS = 2_000;
/** How often Node looks for connections past headersTimeout or requestTimeout. */
const CONNECTIONS_CHECKING_INTERVAL_MS = 1_000;

/** What the service is built with besides its configuration: a deployment gives none (the defaults). */
export type ServerDeps = {
  /** The import job's importer of each source (default the real readers, core/import/importers.ts). */
  importers?: Importers;
  /** A step of each bulk sync write in its transaction, after the writes, before the commit. */
  beforeSyncCommit?: SyncCommitHook;
};

export type RunningServer = {
  url: string;
  /** The TRAKT_API_PORT listener's URL (the facade at its root), when the setting is given. */
  traktUrl: string | undefined;
  db: Database;
  oauth: OAuth;
  limits: RateLimits;
  server: http.Server;
  /** The application the port answers with once started (the server's own listener is the switch in front of it). */
  app: http.RequestListener;
  close(): Promise<void>;
};

/**
 * Stops accepting connections at once (the port is closed: new connections are refused), lets the
 * requests in flight finish, each with `Connection: close`, closes idle keep-alive connections as they
 * become idle, and ends the event streams with a reconnect hint (rest/drain.ts). Whatever is still open
 * when the grace period ends is cut.
 */
async function drainHttp(server: http.Server, drain: Drain, graceMs: number, log: Logger): Promise<void> {
  drain.start();
  // server.close also closes the connections idle right now (Node >= 19).
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  // A keep-alive connection whose response was already under way becomes idle only when it ends.
  const sweep = setInterval(() => server.closeIdleConnections(), 100);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const graceOver = new Promise<true>((resolve) => (timer = setTimeout(() => resolve(true), graceMs)));
  const cut = await Promise.race([closed.then(() => false), graceOver]);
  clearInterval(sweep);
  clearTimeout(timer);
  if (cut) {
    log.warn({ grace_ms: graceMs }, 'shutdown grace period over: cutting the connections still open');
    server.closeAllConnections();
    await closed;
  }
}

export async function startServer(config: Config, log: Logger, deps: ServerDeps = {}): Promise<RunningServer> {
  // Shared rate-limit counters. Commands fail at once while Redis is away (no offline queue): the
  // limiter then counts in memory, and ioredis keeps reconnecting in the background. A Redis that
  // stops answering without closing the connection (hung process, lost network) would otherwise hold
  // every request forever: a command gives up after commandTimeout, and a connection silent for
  // socketTimeout is dropped, so the limiter sees the outage and goes to memory without waiting.
  const redis = config.redisUrl
    ? new Redis(config.redisUrl, {
        enableOfflineQueue: false,
        maxRetriesPerRequest: 1,
        retryStrategy: (n: number) => Math.min(200 * n, 2_000),
        commandTimeout: 250,
        socketTimeout: 1_000,
      })
    : undefined;
  // Made with the client, before anything is awaited: it is the client's error listener, and an error
  // emitted with no listener (Redis down at start) is printed by ioredis outside the log, uncounted.
  const limits = new RateLimits({ redis, prefix: config.redisKeyPrefix, log, enabled: config.rateLimits });
  // The port first: a port another process holds stops start-up before any slow work (claim-port.ts).
  // Until the application is ready, the port answers 503 with the step under way (rest/starting.ts),
  // counted in the limits from the first request, so that 503 carries the rate-limit headers too.
  let step = 'opening the database';
  let handler: http.RequestListener = startingApp(log, () => step, limits);
  const serverOptions: http.ServerOptions = {
      // Bodies have their own 10 s deadline (rest/body.ts); requestTimeout is a backstop.
      requestTimeout: 30_000,
      // Counted from a request's first byte (a connection's opening for its first request): trickling
      // header lines does not move it.
      headersTimeout: config.headersTimeoutMs,
      keepAliveTimeout: 5_000,
      // Node finds the connections past those deadlines by scanning them every this often (30 s by
      // default, which let a 15 s headers timeout run to 45 s): the bound is the timeout + 1 s.
      connectionsCheckingInterval: CONNECTIONS_CHECKING_INTERVAL_MS,
  };
  const server = http.createServer(serverOptions, (req, res) => handler(req, res));
  // TRAKT_API_PORT: the same application (the same switch) with /trakt put before every path, so the
  // facade is at its root and nothing else is reachable there (trakt/listener.ts).
  const traktServer = config.traktApiPort === undefined ? undefined : http.createServer(serverOptions, traktRootListener(() => handler));
  const servers = traktServer ? [server, traktServer] : [server];
  // What Node's parser refuses (e.g. headers over 16 KiB) and the timeouts above are answered in the
  // envelope, not bare, and the connection is then closed (client-error.ts).
  for (const s of servers) s.on('clientError', answerClientError);
  try {
    await claimPort(server, config.port, config.host);
    if (traktServer) {
      await claimPort(traktServer, config.traktApiPort!, config.host, 'TRAKT_API_PORT').catch(async (err: unknown) => {
        await new Promise<void>((resolve) => server.close(() => resolve()));
        throw err;
      });
    }
  } catch (err) {
    redis?.disconnect();
    throw err;
  }
  // MAX_CONNECTIONS caps each listener.
  const unwatch = servers.map((s) => capConnections(s, config.maxConnections, log));
  const unwatchConnections = () => unwatch.forEach((stop) => stop());
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  const traktUrl = traktServer ? `http://127.0.0.1:${(traktServer.address() as AddressInfo).port}` : undefined;
  log.info({ url, ...(traktUrl ? { trakt_url: traktUrl } : {}) }, 'port claimed: answering 503 until started');
  try {
    const started = await startBehindPort(config, log, deps, { redis, limits }, (s) => (step = s));
    handler = started.app;
    // "listening" means ready: what the port answers from now on is the application.
    log.info({ url, ...(traktUrl ? { trakt_url: traktUrl } : {}), mode: started.db.mode }, 'listening');
    return {
      url,
      traktUrl,
      db: started.db,
      oauth: started.oauth,
      limits: started.limits,
      server,
      app: started.app,
      // Graceful: HTTP first (nothing new comes in, what is in flight finishes), then the rest in order
      // (startBehindPort's close). main.ts calls it on SIGTERM; tests call it to stop an app.
      close: async () => {
        await Promise.all(servers.map((s) => drainHttp(s, started.drain, config.shutdownGraceMs, log)));
        unwatchConnections();
        await started.close();
      },
    };
  } catch (err) {
    redis?.disconnect();
    unwatchConnections();
    for (const s of servers) s.closeAllConnections();
    await Promise.all(servers.map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
    throw err;
  }
}

type Started = { app: http.RequestListener; db: Database; oauth: OAuth; limits: RateLimits; drain: Drain; close(): Promise<void> };

/** Everything behind the claimed port: database, migrations, demo data, the application, the jobs. */
async function startBehindPort(config: Config, log: Logger, deps: ServerDeps, shared: { redis: Redis | undefined; limits: RateLimits }, setStep: (step: string) => void): Promise<Started> {
  const { redis, limits } = shared;
  const db = await openDatabase({ databaseUrl: config.databaseUrl, createDatabase: config.databaseCreate, dataDir: config.dataDir, requireOwnership: true, preparedStatements: config.preparedStatements, poolMax: config.poolSize, minFreeBytes: config.dataDirMinFreeBytes, log, observer: databaseMetrics });
  // Playback events (GET /playback/events): Redis pub/sub across instances in services mode, on a second
  // connection (a subscribed connection takes no other commands; a SUBSCRIBE gives up after 2 s), or
  // in-process in embedded mode. Attached to the ORM so procedures publish on it (core/events/registry.ts).
  // The subscriber retries 50 ms later per attempt, at most every 2 s, so live events resume within
  // about 2 s of Redis coming back (ioredis's own default backs off to 5 s).
  const events: EventBus = redis
    ? new RedisEventBus({
        publisher: redis,
        subscriber: new Redis(config.redisUrl!, { commandTimeout: 2_000, retryStrategy: (n: number) => Math.min(50 * n, 2_000) }),
        prefix: config.redisKeyPrefix,
        log,
      })
    : new MemoryEventBus(log);
  attachEventBus(db.orm, events);
  let living: LivingCatalog | undefined;
  try {
    // Live events work from the first request when Redis answers; a Redis that does not delays start-up
    // by at most this (streams answer 503 until it delivers). A Redis away does not stop the service
    // (rate limits count in memory meanwhile, decisions.md), but the operator is told in one line.
    setStep('connecting to Redis');
    if (!(await events.whenDelivering(REDIS_WAIT_MS))) {
      log.warn('event bus not delivering yet: event streams answer 503 until Redis answers');
      process.stderr.write(`REDIS_URL (${redactUrl(config.redisUrl!)}) does not answer within ${REDIS_WAIT_MS / 1000} s: starting anyway; rate limits count in this instance's memory and event streams answer 503 until it does\n`);
    }
    setStep('applying migrations');
    const applied = await migrate(db.orm);
    if (applied.length) log.info({ applied }, 'migrations applied');
    // The demo catalog: imported on a first embedded start, finished by the next start when a kill
    // interrupted it (demo-state.ts); a complete one costs one small read.
    const demoWork = db.mode === 'embedded' ? await demoCatalogWork(db.orm.em.fork()) : undefined;
    if (demoWork && config.demoData === 'auto') {
      setStep('importing the demo catalog');
      // Loaded only here: the importer and its data sources are not needed on later starts.
      const { importDemoCatalog } = await import('./core/catalog/import/demo.ts');
      await importDemoCatalog(db.orm.em.fork(), log, demoWork);
    } else if (demoWork?.interrupted) {
      log.warn({ steps: demoWork.steps }, 'the demo catalog import was interrupted and DEMO_DATA=off: the catalog stays partial until a start with DEMO_DATA=auto finishes it');
    }
    if (db.mode === 'embedded' && config.demoData === 'auto' && !(await hasUsers(db.orm.em.fork()))) {
      setStep('creating the demo account');
      const demo = await createDemoAccount(db.orm.em.fork(), config.baseUrl, config.signups);
      log.info({ username: demo.username, client_id: demo.clientId }, 'demo user and app created');
      // For the person at the terminal (stdout carries JSON log lines).
      process.stderr.write(demo.instructions);
    }
    // The first-party web app's OAuth app, kept in step with BASE_URL (core/apps/first-party.ts).
    setStep('registering the web app');
    if (await registerFirstPartyApp(db.orm.em.fork(), config.baseUrl)) log.info({ client_id: FIRST_PARTY_CLIENT_ID, redirect_uri: firstPartyRedirectUri(config.baseUrl) }, 'web app registered');
    setStep('starting the application');
    // With a metadata provider key, missing titles are fetched on first use and followed ones refreshed.
    living = startLivingCatalog(db.orm, config, log, redis);
    const oauth = await createOAuth({ orm: db.orm, config, log, limits });
    const web = webRoutes({ orm: db.orm, config, log, limits, oauth });
    const drain = new Drain();
    const trakt = (contextFor: TraktFacadeDeps['contextFor']) => traktFacade({ orm: db.orm, config, log, oauth, limits, contextFor });
    const app = createApp({ orm: db.orm, writes: db.writes, config, log, oauth, web, limits, events, drain, catalogCache: createCatalogCache(config.catalogCacheSeconds), beforeSyncCommit: deps.beforeSyncCommit, trakt });
    // A queue that cannot start (pg-boss cannot create its schema, say) fails start-up: the port must
    // not stay open with nothing behind it (startServer closes it).
    const jobs = await startJobs(db.orm, log, config, jobsFor(config, log.child({ component: 'jobs' }), deps.importers));
    // change_feed_lag_seconds, read from the database at each scrape.
    const unwatchFeedLag = watchFeedLag(() => feedHoldSeconds(db.orm.em.fork()));
    return {
      app,
      db,
      oauth,
      limits,
      drain,
      // After the HTTP side has drained (startServer): the jobs, then the connections everything used.
      close: async () => {
        await jobs.stop();
        await living?.close();
        unwatchFeedLag();
        // Ends any event stream still open (the drain ended this instance's; the bus's own listeners go too).
        await events.close();
        redis?.disconnect();
        await db.close();
      },
    };
  } catch (err) {
    // Redis is startServer's to disconnect, after this.
    await living?.close();
    await events.close();
    await db.close();
    throw err;
  }
}
