// A redis-server a test starts, kills, hangs and restarts itself (never the machine's Redis), on a port
// of its own: outages without touching what other test files use.
import { spawn, type ChildProcess } from 'node:child_process';

/** A redis-server of the test's own, without persistence: a restart starts empty. */
export class RedisServer {
  private proc: ChildProcess | undefined;
  readonly port: number;
  constructor(port: number) {
    this.port = port;
  }

  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const proc = spawn('/usr/bin/redis-server', ['--port', String(this.port), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.proc = proc;
    let out = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start in 10 s: ${out}`)), 10_000);
      proc.stdout!.on('data', (chunk: Buffer) => {
        // Read to the end either way, so a full pipe never stalls the server.
        if (out.length < 10_000) out += chunk.toString('utf8');
        if (out.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      proc.stderr!.resume();
      proc.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited (${code ?? signal}): ${out}`));
      });
    });
  }

  /** SIGKILL, as a crash: no goodbye to the clients, and the port is free again once it has exited. */
  async kill(): Promise<void> {
    const proc = this.proc;
    if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((resolve) => proc.once('exit', resolve));
    proc.kill('SIGKILL');
    await exited;
  }

  /** SIGSTOP: connections stay open but nothing answers (a hung server, a lost network). */
  pause(): void {
    this.proc?.kill('SIGSTOP');
  }

  resume(): void {
    this.proc?.kill('SIGCONT');
  }
}
