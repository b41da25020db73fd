// The tables of live events: the stream of a user's events, and the one-time tickets that open it.
import { defineEntity, p } from '@mikro-orm/core';
import { AppUser } from './accounts.ts';

export const StreamEvent = defineEntity({
  name: 'StreamEvent',
  indexes: [{ name: 'stream_event_user', properties: ['user', 'id'] }],
  properties: {

    id: p.bigint('string').primary().autoincrement().generated('identity'),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),

    name: p.text(),

    data: p.json<Record<string, unknown>>(),

    createdAt: p.datetime().defaultRaw(`now()`).index('stream_event_created'),
  },
});

export const StreamTicket = defineEntity({
  name: 'StreamTicket',
  properties: {

    ticketHash: p.text().primary(),
    user: () => p.manyToOne(AppUser).updateRule('no action').deleteRule('cascade'),

    clientId: p.text(),

    scopes: p.text(),

    official: p.boolean(),

    tokenDigest: p.text(),

    /** The stored key of the access token that asked for the ticket: the stream is re-checked against it. */
    tokenKey: p.text(),

    expiresAt: p.datetime().index('stream_ticket_expires'),

    usedAt: p.datetime().nullable(),
  },
});
