import { Type } from 'typebox';
import { Mode, Timestamp } from './common.ts';
import { LOOKUP_ID_LENGTH_MAX, PAGE_SIZE_DEFAULT, PAGE_SIZE_MAX } from '../limits.ts';

export const DeliveryState = Type.Union([Type.Literal('pending'), Type.Literal('delivering'), Type.Literal('succeeded'), Type.Literal('failed')], {
  description: 'pending: waiting for its (next) attempt; delivering: an attempt is in flight; succeeded: a 2xx came back; failed: 6 attempts (the first and 5 retries) did not succeed',
});

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt' }),
  attemptedAt: Timestamp,
  status: Type.Union([Type.Integer(), Type.Null()], { description: 'The HTTP status the receiver answered, null when none came back' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt failed: timeout, connection_error, http_status_<n>, address_not_allowed (live mode refuses private addresses)' }),
  durationMs: Type.Integer(),
});

export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'whd_...' }),
  eventId: Type.String({ description: 'evt_...: the id field of the body; identical in every attempt, so receivers deduplicate on it' }),
  event: Type.String({ description: 'The event type, e.g. payment.completed' }),
  mode: Mode,
  url: Type.String(),
  signatureFormat: Type.Union([Type.Literal('hex'), Type.Literal('sha256=')]),
  state: DeliveryState,
  attemptCount: Type.Integer(),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'When the next automatic attempt is due; null once succeeded or failed' }),
  lastStatus: Type.Union([Type.Integer(), Type.Null()]),
  lastError: Type.Union([Type.String(), Type.Null()]),
  payload: Type.String({ description: 'The exact raw JSON body every attempt sends (and signs)' }),
  attempts: Type.Array(DeliveryAttempt, { description: 'Every attempt, oldest first' }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
});

export const WebhookDeliveryQuery = Type.Object({
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: PAGE_SIZE_MAX, default: PAGE_SIZE_DEFAULT })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
  state: Type.Optional(DeliveryState),
  event: Type.Optional(Type.String({ maxLength: 100, description: 'Only deliveries of this event type' })),
  eventId: Type.Optional(Type.String({ maxLength: LOOKUP_ID_LENGTH_MAX, description: 'Only deliveries of this event' })),
});
