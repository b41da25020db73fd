// Requests Node's HTTP parser refuses before Express sees them (a request line or headers over Node's
// 16 KiB limit, malformed syntax, headers not received in time) are answered in the API's error envelope
// too, instead of Node's bare status line with no body. There is no request object yet: the request id
// is minted here, and the public API is recognised from the request line when the parser kept it.
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import type { ErrorCode } from '../core/errors.ts';
import { PUBLIC_BASE } from './envelope.ts';
import { newRequestId, REQUEST_ID_HEADER } from './request-id.ts';

type ParseError = Error & { code?: string; rawPacket?: Buffer };

const ANSWERS: Record<string, { status: number; error: ErrorCode; message: string }> = {
  HPE_HEADER_OVERFLOW: { status: 431, error: 'invalid_request', message: 'The request line and headers are over the 16 KiB limit' },
  HPE_CHUNK_EXTENSIONS_OVERFLOW: { status: 413, error: 'payload_too_large', message: 'Chunk extensions are over the size limit' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, error: 'request_timeout', message: 'The request was not received in time' },
};
/** The longest an answered connection stays open when its answer cannot be handed over. */
const LINGER_MS = 1_000;
const MALFORMED: { status: number; error: ErrorCode; message: string } = { status: 400, error: 'invalid_request', message: 'Malformed HTTP request' };

function isPublicRequest(raw: Buffer | undefined): boolean {
  const line = raw?.subarray(0, 200).toString('latin1') ?? '';
  return /^[A-Z]+ /.test(line) && line.slice(line.indexOf(' ') + 1).startsWith(`${PUBLIC_BASE}/`);
}

/** The server's `clientError` listener: Node's own answer, with the envelope as its body. */
export function answerClientError(err: ParseError, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  // As Node does: write nothing into a response already under way, and nothing to a closed socket.
  if (err.code !== 'ECONNRESET' && socket.writable && !inFlight?.headersSent) {
    const answer = (err.code ? ANSWERS[err.code] : undefined) ?? MALFORMED;
    const id = newRequestId();
    const body = JSON.stringify(isPublicRequest(err.rawPacket) ? { message: answer.message } : { error: answer.error, message: answer.message, request_id: id });
    // Node's HTTP sockets are half-open (allowHalfOpen): end() closes only our side, and Node stops
    // watching a connection once it reports it here. A client that never closes its own side (one that
    // trickles header lines past the headers timeout, say) would keep the connection and its file
    // descriptor for ever. Node's own answer destroys the socket after writing; here it is destroyed
    // once the answer is handed to the kernel, or after LINGER_MS if a client that reads nothing holds
    // the answer up.
    socket.end(
      `HTTP/1.1 ${answer.status} ${STATUS_CODES[answer.status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `${REQUEST_ID_HEADER}: ${id}\r\nConnection: close\r\n\r\n${body}`,
      () => socket.destroy(),
    );
    const linger = setTimeout(() => socket.destroy(), LINGER_MS).unref();
    socket.once('close', () => clearTimeout(linger));
    return;
  }
  socket.destroy();
}
