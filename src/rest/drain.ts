// Graceful shutdown of the HTTP side (server.ts drives it on SIGTERM). Once draining: every response
// not yet started says `Connection: close`, so a keep-alive client opens its next request elsewhere
// (Node then closes the socket after that response); open event streams are told to reconnect
// (`retry:` and a comment) and ended, since they would never finish by themselves.
import type { NextFunction, Request, Response } from 'express';

export class Drain {
  #draining = false;
  readonly #inFlight = new Set<Response>();
  readonly #streams = new Set<() => void>();

  get draining(): boolean {
    return this.#draining;
  }

  /** Pipeline middleware, first: tracks the responses in flight and closes connections while draining. */
  readonly middleware = (_req: Request, res: Response, next: NextFunction): void => {
    if (this.#draining) res.setHeader('Connection', 'close');
    else {
      this.#inFlight.add(res);
      const forget = () => this.#inFlight.delete(res);
      res.once('finish', forget);
      res.once('close', forget);
    }
    next();
  };

  /** An open stream's goodbye, called when draining starts; returns the function that forgets it. */
  onDrain(goodbye: () => void): () => void {
    if (this.#draining) {
      goodbye();
      return () => {};
    }
    this.#streams.add(goodbye);
    return () => this.#streams.delete(goodbye);
  }

  start(): void {
    if (this.#draining) return;
    this.#draining = true;
    for (const res of this.#inFlight) if (!res.headersSent) res.setHeader('Connection', 'close');
    this.#inFlight.clear();
    const streams = [...this.#streams];
    this.#streams.clear();
    for (const goodbye of streams) goodbye();
  }
}
