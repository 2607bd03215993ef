// The administrators' operations: API clients (auth:admin) and the operation of webhook delivery (webhooks:admin).
import { nonEmptyStringSchema } from '../../primitives';
import * as examples from '../examples';
import { z } from '../extend-zod';
import type { ApiOperation } from './api-operation';
import { deliveryQuery, id, json, LIST_ERRORS, page, READ_ERRORS, reply } from './common';
import { SCHEMAS } from './schemas';

const clientId = z.object({
  clientId: nonEmptyStringSchema.openapi({ description: 'The client id', example: examples.EXAMPLE_IDS.client }),
});

export const ADMINISTRATION_OPERATIONS: ApiOperation[] = [
  {
    method: 'post',
    path: '/admin/clients',
    operationId: 'registerClient',
    tag: 'Administration',
    summary: 'Register an API client',
    description: 'The reply holds the client secret (and an RSP’s webhook signing secret): shown this once only.',
    scope: 'auth:admin',
    request: {
      body: json(SCHEMAS.ApiClientRegistration, {
        name: examples.exampleClient.name,
        kind: 'RSP',
        webhookUrl: examples.exampleClient.webhookUrl,
      }),
    },
    responses: {
      201: reply('Registered.', json(SCHEMAS.RegisteredApiClient, examples.exampleRegisteredClient), [
        'Location',
        'Cache-Control',
      ]),
    },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR'],
  },
  {
    method: 'get',
    path: '/admin/clients',
    operationId: 'listClients',
    tag: 'Administration',
    summary: 'List API clients',
    scope: 'auth:admin',
    request: { query: z.object(page) },
    responses: { 200: reply('A page of clients.', json(SCHEMAS.ApiClientList, examples.exampleClientList)) },
    errors: ['INVALID_LIMIT', 'INVALID_OFFSET'],
  },
  {
    method: 'get',
    path: '/admin/clients/{clientId}',
    operationId: 'getClient',
    tag: 'Administration',
    summary: 'Get an API client',
    scope: 'auth:admin',
    request: { params: clientId },
    responses: { 200: reply('The client (never a secret).', json(SCHEMAS.ApiClientView, examples.exampleClient)) },
    errors: READ_ERRORS,
  },
  {
    method: 'patch',
    path: '/admin/clients/{clientId}',
    operationId: 'updateClient',
    tag: 'Administration',
    summary: "Change a client's name, scopes or webhook URL",
    scope: 'auth:admin',
    request: {
      params: clientId,
      body: json(SCHEMAS.ApiClientUpdate, { webhookUrl: 'https://rsp.example.com/hooks/v2' }),
    },
    responses: { 200: reply('The client.', json(SCHEMAS.ApiClientView, examples.exampleClient)) },
    errors: [...READ_ERRORS, 'VALIDATION_ERROR'],
  },
  {
    method: 'post',
    path: '/admin/clients/{clientId}/rotate-secret',
    operationId: 'rotateClientSecret',
    tag: 'Administration',
    summary: 'Issue new secrets for a client (the old webhook secret still signs for a grace period)',
    scope: 'auth:admin',
    request: { params: clientId },
    responses: {
      200: reply('The new secrets, shown this once.', json(SCHEMAS.ApiClientSecrets, examples.exampleClientSecrets), [
        'Cache-Control',
      ]),
    },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/admin/clients/{clientId}/disable',
    operationId: 'disableClient',
    tag: 'Administration',
    summary: 'Disable a client: no new tokens, no webhooks',
    scope: 'auth:admin',
    request: { params: clientId },
    responses: {
      200: reply('The client.', json(SCHEMAS.ApiClientView, { ...examples.exampleClient, enabled: false })),
    },
    errors: READ_ERRORS,
  },
  {
    method: 'get',
    path: '/admin/webhooks/deliveries',
    operationId: 'listDeliveries',
    tag: 'Administration',
    summary: "Every client's webhook deliveries, newest first",
    scope: 'webhooks:admin',
    request: { query: z.object({ ...deliveryQuery, clientId: nonEmptyStringSchema.optional() }) },
    responses: { 200: reply('A page of deliveries.', json(SCHEMAS.DeliveryList, examples.exampleDeliveryList)) },
    errors: LIST_ERRORS,
  },
  {
    method: 'get',
    path: '/admin/webhooks/deliveries/{id}',
    operationId: 'getDelivery',
    tag: 'Administration',
    summary: 'One delivery with its attempts',
    scope: 'webhooks:admin',
    request: { params: id('The delivery id') },
    responses: { 200: reply('The delivery.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/admin/webhooks/deliveries/{id}/redrive',
    operationId: 'redriveDelivery',
    tag: 'Administration',
    summary: 'Send a delivery again',
    scope: 'webhooks:admin',
    request: { params: id('The delivery id') },
    responses: { 202: reply('Scheduled again.', json(SCHEMAS.DeliveryDetail, examples.exampleDeliveryDetail)) },
    errors: [...READ_ERRORS, 'CONFLICT'],
  },
  {
    method: 'get',
    path: '/admin/webhooks/endpoints',
    operationId: 'listEndpoints',
    tag: 'Administration',
    summary: 'Every webhook endpoint and how it is doing',
    scope: 'webhooks:admin',
    responses: {
      200: reply('The endpoints.', json(SCHEMAS.EndpointList, { endpoints: [examples.exampleEndpoint] })),
    },
  },
  {
    method: 'get',
    path: '/admin/webhooks/endpoints/{clientId}',
    operationId: 'getEndpoint',
    tag: 'Administration',
    summary: "A client's webhook endpoint",
    scope: 'webhooks:admin',
    request: { params: clientId },
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: READ_ERRORS,
  },
  {
    method: 'post',
    path: '/admin/webhooks/endpoints/{clientId}/redrive',
    operationId: 'redriveEndpoint',
    tag: 'Administration',
    summary: 'Send every DEAD delivery of a client created since a time again',
    scope: 'webhooks:admin',
    request: { params: clientId, body: json(SCHEMAS.RedriveRequest, { since: '2024-03-01T00:00:00Z' }) },
    responses: { 202: reply('How many were scheduled again.', json(SCHEMAS.RedriveReply, { redriven: 3 })) },
    errors: ['INVALID_REQUEST', 'VALIDATION_ERROR', 'RESOURCE_NOT_FOUND'],
  },
  {
    method: 'post',
    path: '/admin/webhooks/endpoints/{clientId}/enable',
    operationId: 'enableEndpoint',
    tag: 'Administration',
    summary: 'Enable an endpoint disabled after a 410 (or by an SRE)',
    scope: 'webhooks:admin',
    request: { params: clientId },
    responses: { 200: reply('The endpoint.', json(SCHEMAS.Endpoint, examples.exampleEndpoint)) },
    errors: READ_ERRORS,
  },
];
