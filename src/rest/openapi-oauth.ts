// The OAuth and device endpoints in the platform OpenAPI document. They are served by the authorization
// server (Express + oidc-provider), not by procedures, so they are described here, in one place, with
// the error codes each answers besides those of the pipeline (openapi-errors.ts).
import type { HandWrittenErrors } from './openapi-errors.ts';

type Json = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: Json) => ({ 'application/json': { schema } });
const jsonOrForm = (schema: Json) => ({ 'application/json': { schema }, 'application/x-www-form-urlencoded': { schema } });
const str = { type: 'string' };
const nullableStr = { type: ['string', 'null'] };

export const oauthSchemas: Record<string, Json> = {
  TokenResponse: {
    type: 'object',
    required: ['access_token', 'refresh_token', 'token_type', 'expires_in', 'refresh_expires_in', 'scope'],
    properties: {
      access_token: str,
      refresh_token: str,
      token_type: { type: 'string', enum: ['bearer'] },
      expires_in: { type: 'integer', description: 'Seconds (one hour)' },
      refresh_expires_in: { type: 'integer', description: 'Seconds the refresh token (and its chain) stays usable' },
      scope: { type: 'string', description: 'Space-delimited granted scopes' },
    },
  },
  DeviceTokenResponse: {
    allOf: [ref('TokenResponse'), { type: 'object', required: ['username'], properties: { username: nullableStr } }],
  },
  DeviceCodeResponse: {
    type: 'object',
    required: ['user_code', 'device_code', 'verification_uri', 'verification_uri_complete', 'verification_uri_qr', 'expires_in', 'interval', 'scope'],
    properties: {
      user_code: str,
      device_code: str,
      verification_uri: { type: 'string', format: 'uri' },
      verification_uri_complete: { type: 'string', format: 'uri' },
      verification_uri_qr: { type: 'string', description: 'PNG QR code of verification_uri_complete as a data URL' },
      expires_in: { type: 'integer' },
      interval: { type: 'integer', description: 'Seconds to wait between polls (5); a poll sooner than that is answered slow_down and the interval grows by 5' },
      scope: str,
    },
  },
  TokenRequest: {
    type: 'object',
    required: ['grant_type', 'client_id'],
    properties: {
      grant_type: { type: 'string', enum: ['authorization_code', 'refresh_token'] },
      client_id: str,
      client_secret: str,
      code: str,
      code_verifier: str,
      redirect_uri: str,
      refresh_token: str,
    },
  },
  DeviceCodeRequest: {
    type: 'object',
    required: ['client_id'],
    properties: { client_id: str, client_secret: nullableStr, scope: { type: 'string', description: "Space-delimited; default: the app's allowed_scopes" } },
  },
  DeviceTokenRequest: {
    type: 'object',
    required: ['client_id', 'device_code'],
    properties: {
      client_id: str,
      device_code: str,
      client_secret: nullableStr,
      device_id: str,
      device_name: str,
      linked_user_id: str,
      linked_username: str,
    },
  },
  RefreshRequest: { type: 'object', required: ['client_id', 'refresh_token'], properties: { client_id: str, client_secret: str, refresh_token: str } },
  RevokeRequest: {
    type: 'object',
    required: ['token'],
    properties: { token: str, token_type_hint: { type: 'string', enum: ['access_token', 'refresh_token'] }, client_id: str, client_secret: str },
  },
};

/** The authorization page is a person's browser: an error it cannot redirect is an HTML page. */
const htmlPage = { 'text/html': { schema: { type: 'string' }, example: '<!doctype html><title>Error</title><h1>This app cannot be authorized</h1>' } };

/**
 * What each endpoint's own rules answer in the envelope, by operationId (the provider's errors). The
 * authorization page answers its own errors as pages (or redirects), described with them below.
 */
export const oauthErrors: HandWrittenErrors = {
  'oauth-authorize': [],
  // A POST without `decision` is an authorization request by POST, which the service does not take.
  'oauth-authorize-decision': ['not_found'],
  'oauth-token': ['invalid_client', 'invalid_grant', 'invalid_scope', 'unauthorized_client', 'unsupported_grant_type', 'authorization_pending', 'slow_down', 'expired', 'access_denied'],
  'device-code': ['invalid_client', 'invalid_scope', 'unauthorized_client'],
  'device-token': ['invalid_client', 'unauthorized_client', 'authorization_pending', 'slow_down', 'expired', 'access_denied'],
  'auth-refresh': ['invalid_client', 'invalid_grant', 'invalid_scope', 'unauthorized_client'],
  'oauth-revoke': ['invalid_client', 'unauthorized_client', 'unsupported_token_type'],
};

export const oauthPaths: Record<string, Json> = {
  '/oauth/authorize': {
    get: {
      operationId: 'oauth-authorize',
      tags: ['oauth'],
      security: [],
      summary: 'Start an authorization (code flow with PKCE S256); the user signs in and consents',
      parameters: [
        ...['response_type', 'client_id', 'redirect_uri', 'code_challenge', 'code_challenge_method'].map((name) => ({ in: 'query', name, required: true, schema: str })),
        { in: 'query', name: 'scope', schema: str, description: "Space-delimited; default: the app's allowed_scopes" },
        { in: 'query', name: 'state', schema: str },
      ],
      responses: {
        '302': { description: 'To the redirect URI with code, state and scope; or with error (and state)' },
        '303': { description: 'To the sign-in and consent pages of the authorization server' },
        '400': { description: 'An error page where the redirect URI cannot be trusted: an unknown or inactive app (`unauthorized_client`), a redirect URI not registered (`invalid_request`), a request the provider refuses', content: htmlPage },
      },
    },
    post: {
      operationId: 'oauth-authorize-decision',
      tags: ['oauth'],
      security: [],
      summary: "The consent page's decision",
      requestBody: {
        content: {
          'application/x-www-form-urlencoded': {
            schema: {
              type: 'object',
              required: ['interaction', 'csrf', 'client_id', 'redirect_uri', 'code_challenge', 'decision'],
              properties: {
                interaction: { type: 'string', description: 'The interaction the consent page shows' },
                csrf: { type: 'string', description: "The consent page's token, bound to this browser" },
                client_id: str,
                redirect_uri: { type: 'string', format: 'uri' },
                code_challenge: str,
                decision: { type: 'string', enum: ['approve', 'deny'] },
                response_type: { type: 'string', enum: ['code'] },
                code_challenge_method: { type: 'string', enum: ['S256'] },
                scope: str,
                state: nullableStr,
              },
            },
          },
        },
      },
      responses: {
        '303': { description: 'Back through the server to the registered redirect URI with code or error' },
        '400': { description: 'An error page: the request expired, or the form does not match the request being approved', content: htmlPage },
        '403': { description: 'The form was not posted by the consent page of this browser, or the request expired', content: htmlPage },
        '429': { description: 'Too many approvals by this user in a short time', content: htmlPage },
      },
    },
  },
  '/oauth/token': {
    post: {
      operationId: 'oauth-token',
      tags: ['oauth'],
      security: [],
      summary: 'Exchange a code, or refresh (the refresh token rotates)',
      requestBody: { required: true, content: jsonOrForm(ref('TokenRequest')) },
      responses: { '200': { description: 'Tokens', content: json(ref('TokenResponse')) } },
    },
  },
  '/auth/device/code': {
    post: {
      operationId: 'device-code',
      tags: ['oauth'],
      security: [],
      summary: 'Start the device flow',
      requestBody: { required: true, content: jsonOrForm(ref('DeviceCodeRequest')) },
      responses: { '200': { description: 'Device and user codes', content: json(ref('DeviceCodeResponse')) } },
    },
  },
  '/auth/device/token': {
    post: {
      operationId: 'device-token',
      tags: ['oauth'],
      security: [],
      summary:
        'Poll for tokens: 400 authorization_pending until approved, 400 slow_down (with the new `interval`) when polled sooner than the interval, 400 expired when the code is invalid or expired',
      requestBody: { required: true, content: jsonOrForm(ref('DeviceTokenRequest')) },
      responses: { '200': { description: 'Tokens and the username', content: json(ref('DeviceTokenResponse')) } },
    },
  },
  '/auth/refresh': {
    post: {
      operationId: 'auth-refresh',
      tags: ['oauth'],
      security: [],
      summary: 'Refresh device tokens; the old refresh token must be replaced at once',
      requestBody: { required: true, content: jsonOrForm(ref('RefreshRequest')) },
      responses: { '200': { description: 'Tokens with a rotated refresh token', content: json(ref('TokenResponse')) } },
    },
  },
  '/oauth/revoke': {
    post: {
      operationId: 'oauth-revoke',
      tags: ['oauth'],
      security: [],
      summary: 'Revoke an access or refresh token (RFC 7009)',
      requestBody: { required: true, content: jsonOrForm(ref('RevokeRequest')) },
      responses: { '200': { description: 'Revoked (also for tokens that were already invalid)' } },
    },
  },
};
