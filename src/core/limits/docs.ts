// A limit in words, for the README's table and the OpenAPI documents.
import type { Limit } from './table.ts';

const PER: Record<Limit['key'], string> = {
  ip: 'client address',
  client_ip: 'app (client id) and address',
  user: 'user',
  user_or_ip: 'user (client address when signed out)',
  app_user: 'app and user (token)',
  operation_app_user: 'operation, app and user',
  token: 'access token',
  feed_token: 'calendar feed token',
  app: 'app, all users',
  account: 'account (username)',
  receiver: 'media-server receiver',
};

export function windowText(seconds: number): string {
  if (seconds % 3600 === 0) return seconds === 3600 ? 'hour' : `${seconds / 3600} hours`;
  return seconds === 60 ? 'minute' : `${seconds / 60} minutes`;
}

export function describeLimit(l: Limit): string {
  return `${l.points.toLocaleString('en-US')} per ${windowText(l.seconds)} per ${PER[l.key]}`;
}
