// The RSP's self-service of its webhooks: its deliveries and the event types it subscribes to.
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { deliveryQuery, id, json, LIST_ERRORS, READ_ERRORS, reply } from './common';
import { SCHEMAS } from './schemas';

export const WEBHOOK_OPERATIONS: ApiOperation[] = [
  {
    method: 'get',
    path: '/webhooks/deliveries',
    operationId: 'listMyDeliveries',
    tag: 'Webhooks',
    summary: "The caller's webhook deliveries, newest first",
    scope: 'locations:read',
    request: { query: z.object(deliveryQuery) },
    responses: { 200: reply('A page of deliveries.', json(SCHEMAS.DeliveryList, examples.exampleDeliveryList)) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/webhooks/deliveries/{id}',
    operationId: 'getMyDelivery',
    tag: 'Webhooks',
    summary: 'One delivery with its attempts',
    scope: 'locations:read',
    request: { params: id('The delivery id (the webhook-id header)') },
    responses: { 200: reply('The delivery.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/webhooks/deliveries/{id}/redeliver',
    operationId: 'redeliver',
    tag: 'Webhooks',
    summary: 'Send a delivery again',
    scope: 'locations:read',
    request: { params: id('The delivery id') },
    responses: { 202: reply('Scheduled again.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: [...READ_ERRORS, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/webhooks/subscription',
    operationId: 'getSubscription',
    tag: 'Webhooks',
    summary: "The caller's webhook endpoint and the event types it receives",
    scope: 'locations:read',
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: ['RESOURCE_NOT_FOUND'],
  },
  {
    method: 'put',
    path: '/webhooks/subscription',
    operationId: 'chooseEventTypes',
    tag: 'Webhooks',
    summary: 'Choose the event types to receive',
    scope: 'locations:read',
    request: { body: json(SCHEMAS.SubscriptionUpdate, { eventTypes: ['EXPORT_COMPLETED', 'EXPORT_FAILED'] }) },
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'RESOURCE_NOT_FOUND'],
  },
];
